// Loaded before every test file of the matrix: a test run that claims a runtime must be inside it
// (vitest forks its workers with process.execPath, and a fallback to the Node that started pnpm
// would pass every test while proving nothing).
import { runtimeName } from '../src/runtime-name.js'

const expected = process.env.STOWAGE_RUNTIME
if (expected !== undefined && runtimeName() !== expected) {
  throw new Error(`the matrix asked for ${expected} but this test file runs in ${runtimeName()}`)
}
