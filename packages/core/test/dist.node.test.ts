// The built package as users load it: ESM and CJS, each with the platform its conditions pick
// (native zlib on Node; fflate with --conditions=browser), reading each other's bytes.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const require = createRequire(import.meta.url)

it('ESM and CJS builds encode and decode, and read each other’s bytes', async () => {
  const entries = [await import(pathToFileURL(join(dist, 'index.js')).href), require(join(dist, 'index.cjs'))] as Array<typeof import('../src/index.js')>
  const value = { rows: Array.from({ length: 500 }, (_, i) => ({ i, at: new Date(i) })), big: 2n ** 80n }
  for (const writer of entries) {
    const bytes = writer.encode(value)
    for (const reader of entries) expect(reader.decode(bytes)).toStrictEqual(value)
  }
  // StowageError from one copy is recognised by another.
  const error = (() => {
    try {
      entries[1]!.decode(new Uint8Array([1]))
    } catch (e) {
      return e
    }
  })()
  expect(entries[0]!.StowageError.isInstance(error)).toBe(true)
})

it('Node picks the zlib platform, --conditions=browser the fflate one, and their bytes agree', () => {
  const script = (entry: string) =>
    `const c = ${entry}; const v = 'the same sentence again and again; '.repeat(200); const b = c.encode(v); process.stdout.write(JSON.stringify({ ok: c.decode(b) === v, bytes: Array.from(b) }))`
  const run = (args: string[], code: string) => JSON.parse(execFileSync(process.execPath, [...args, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }))
  const esm = (conditions: string[]) => run(conditions, `import * as m from ${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)}; ${script('m')}`)
  const node = esm([])
  const browser = esm(['--conditions=browser'])
  expect(node.ok && browser.ok).toBe(true)
  // zlib and fflate deflate differently: different bytes, both readable by the other (interop.node.test.ts).
  expect(node.bytes).not.toStrictEqual(browser.bytes)
  const cjs = JSON.parse(execFileSync(process.execPath, ['-e', script(`require(${JSON.stringify(join(dist, 'index.cjs'))})`)], { cwd: root, encoding: 'utf8' }))
  expect(cjs).toStrictEqual(node)
})
