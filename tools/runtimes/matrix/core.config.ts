import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { platformSource } from './platform.js'

const core = fileURLToPath(new URL('../../../packages/core/', import.meta.url))

// @stowage/core's runtime-neutral tests (every test file but *.node.test.ts: codec round trips,
// golden vectors, hostile inputs, shapes, dictionaries, the Cache, the memory store through the
// Store contract) in whichever runtime runs vitest, with the platform file that runtime gets.
export default defineConfig({
  root: core,
  resolve: { alias: { '#platform': platformSource(core) } },
  test: {
    name: 'core',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.node.test.ts'],
    setupFiles: [fileURLToPath(new URL('./runtime-check.ts', import.meta.url))],
    // Deno and Bun run the heaviest tests (65,536 shapes) up to twice as slowly as Node, and a
    // loaded two-core machine misses the Cache's 400 ms soft-timeout bound now and then: a longer
    // timeout, and one retry (a test that fails twice fails; vitest reports the retry).
    testTimeout: 30_000,
    retry: 1,
    // Bun answers `'__esModule' in namespace` with true for every ES module namespace, so vitest's
    // CommonJS interop takes a package's default export for the whole module: `import('zod')` then
    // has no `z`. Bun does its own CommonJS interop; vitest's is not needed there.
    deps: { interopDefault: !('Bun' in globalThis) },
  },
})
