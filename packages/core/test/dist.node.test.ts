// The built package as users load it: portable and Node entries, ESM and CJS, reading each other's bytes.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const require = createRequire(import.meta.url)

it('every built entry encodes and decodes, and reads the others’ bytes', async () => {
  const entries = [
    await import(pathToFileURL(join(dist, 'index.js')).href),
    await import(pathToFileURL(join(dist, 'node.js')).href),
    require(join(dist, 'index.cjs')),
    require(join(dist, 'node.cjs')),
  ] as Array<typeof import('../src/index.js')>
  const value = { rows: Array.from({ length: 500 }, (_, i) => ({ i, at: new Date(i) })), big: 2n ** 80n }
  for (const writer of entries) {
    const bytes = writer.encode(value)
    for (const reader of entries) expect(reader.decode(bytes)).toStrictEqual(value)
  }
  // StowageError from one copy is recognised by another.
  const error = (() => {
    try {
      entries[2]!.decode(new Uint8Array([1]))
    } catch (e) {
      return e
    }
  })()
  expect(entries[0]!.StowageError.isInstance(error)).toBe(true)
})
