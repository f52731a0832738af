// The built package as users load it: ESM and CJS, each with the platform its conditions pick
// (native zlib on Node; fflate with --conditions=browser), reading each other's bytes.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

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

it('Node picks the zlib platform and hands out Buffers, --conditions=browser the fflate one and plain Uint8Arrays, and their bytes agree', () => {
  const script = (entry: string) =>
    `const c = ${entry}; const v = 'the same sentence again and again; '.repeat(200); const b = c.encode(v); process.stdout.write(JSON.stringify({ ok: c.decode(b) === v, kind: b.constructor.name, bytes: Array.from(b) }))`
  const run = (args: string[], code: string) => JSON.parse(execFileSync(process.execPath, [...args, '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }))
  const esm = (conditions: string[]) => run(conditions, `import * as m from ${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)}; ${script('m')}`)
  const node = esm([])
  const browser = esm(['--conditions=browser'])
  expect(node.ok && browser.ok).toBe(true)
  expect([node.kind, browser.kind]).toStrictEqual(['Buffer', 'Uint8Array'])
  // zlib and fflate deflate differently: different bytes, both readable by the other (interop.node.test.ts).
  expect(node.bytes).not.toStrictEqual(browser.bytes)
  const cjs = JSON.parse(execFileSync(process.execPath, ['-e', script(`require(${JSON.stringify(join(dist, 'index.cjs'))})`)], { cwd: root, encoding: 'utf8' }))
  expect(cjs).toStrictEqual(node)
})

describe('@opentelemetry/api costs nothing to those who do not use @stowage/core/otel', () => {
  const files = readdirSync(dist).filter((f) => /\.(c?js|d\.c?ts)$/.test(f))

  it('only the otel entry names it: the main entry, its chunks, its types and the platform files do not', () => {
    const naming = files.filter((f) => readFileSync(join(dist, f), 'utf8').includes('@opentelemetry'))
    expect(naming.sort()).toStrictEqual(['otel.cjs', 'otel.d.cts', 'otel.d.ts', 'otel.js'])
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts', 'platform-node.js', 'platform-portable.cjs']))
  })

  it('a browser bundle of the main entry, as the size budget measures it, takes no file of it', async () => {
    const result = await build({ absWorkingDir: root, stdin: { contents: "export * from './dist/index.js'", resolveDir: root }, bundle: true, format: 'esm', platform: 'browser', write: false, metafile: true })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs).toContain('dist/index.js')
    expect(inputs.filter((f) => /opentelemetry|otel/.test(f))).toStrictEqual([])
  })

  it('the main entry loads and caches where the API is not installed; only the otel entry needs it', () => {
    const bare = mkdtempSync(join(tmpdir(), 'stowage-no-otel-'))
    cpSync(join(root, 'package.json'), join(bare, 'package.json'))
    cpSync(dist, join(bare, 'dist'), { recursive: true })
    const cache = "const c = m.createCache(); process.stdout.write(String(await c.getOrSet('k', () => 42)))"
    const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: bare, encoding: 'utf8', stdio: 'pipe' })
    try {
      expect(node(['--input-type=module', '-e', `import * as m from '@stowage/core'; ${cache}`])).toBe('42')
      expect(node(['-e', `(async () => { const m = require('@stowage/core'); ${cache} })()`])).toBe('42')
      expect(() => node(['--input-type=module', '-e', "import '@stowage/core/otel'"])).toThrow(/Cannot find package '@opentelemetry\/api'/)
    } finally {
      rmSync(bare, { recursive: true, force: true })
    }
  })

  it('the otel entry, ESM and CJS, instruments a cache of its own build through the package exports', () => {
    const script = (load: string) =>
      `${load} const spans = new InMemorySpanExporter(); const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });` +
      ` const cache = instrumentCache(createCache(), { tracerProvider }); await cache.getOrSet('k', () => 1);` +
      ` process.stdout.write(JSON.stringify(spans.getFinishedSpans().map((s) => [s.name, s.attributes['stowage.loaded']])))`
    const esm = `import { createCache } from '@stowage/core'; import { instrumentCache } from '@stowage/core/otel'; import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';`
    const cjs = `const { createCache } = require('@stowage/core'); const { instrumentCache } = require('@stowage/core/otel'); const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');`
    const expected = [['stowage.cache.getOrSet', true]]
    expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script(esm)], { cwd: root, encoding: 'utf8' }))).toStrictEqual(expected)
    expect(JSON.parse(execFileSync(process.execPath, ['-e', `(async () => { ${script(cjs)} })()`], { cwd: root, encoding: 'utf8' }))).toStrictEqual(expected)
  })
})
