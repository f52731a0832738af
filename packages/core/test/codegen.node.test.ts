// Shapes are built by compiled object literals where code generation is allowed, and by keyed
// stores where it is not (a Content Security Policy without 'unsafe-eval', Cloudflare Workers).
// Node's --disallow-code-generation-from-strings makes `new Function` throw, as those do.
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { expect, it } from 'vitest'

const entry = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js')).href
const script = `
  import { createCodec } from ${JSON.stringify(entry)}
  let generated = true
  try { new Function('return 1') } catch { generated = false }
  const codec = createCodec({ compress: 'never' })
  const value = Array.from({ length: 50 }, (_, i) => ({ kind: i % 2 ? 'x' : 'y', nested: { p: i, q: [i], r: { s: String(i) } }, ['k' + (i % 3)]: i, __proto__x: i }))
  const bytes = codec.encode(value)
  const outputs = []
  for (let round = 0; round < 20; round++) outputs.push(JSON.stringify(codec.decode(bytes)))
  process.stdout.write(JSON.stringify({ generated, same: outputs.every((o) => o === JSON.stringify(value)) }))
`
const run = (flags: string[]) => JSON.parse(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8' }))

it('decodes the same objects with and without code generation (builders compiled after COMPILE_AFTER uses: 50 values, 20 decodes)', () => {
  expect(run([])).toStrictEqual({ generated: true, same: true })
  expect(run(['--disallow-code-generation-from-strings'])).toStrictEqual({ generated: false, same: true })
})
