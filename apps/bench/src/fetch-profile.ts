// Where a page's main thread spends fetchCached's first load and reload (issue 18), beside the JSON
// path of fetch-bench.ts: the same page, data and server, a browser started anew on an on-disk
// profile per sample, V8's sampling profiler (50 µs) attached through the DevTools protocol while
// the page loads the data once. Splits the main thread's busy time into JavaScript of the page's
// bundle (Stowage, idb, idb-keyval, fflate), the browser's native functions, V8's own work
// ("(program)": compiling, parsing, the runtime) and garbage collection, and lists the bundle's
// functions that took the most. Prints Markdown. The profiler slows the page: fetch-bench.ts has
// the timings, this where they go.
import { createCodec } from '@stowage/core'
import { envelopeEtag } from '@stowage/http'
import { build } from 'esbuild'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FetchMethod } from './browser/fetch-page.js'
import { withPersistentPage } from './browser-page.js'
import { meanOf, profiled, splitProfile, topFunctions, type ProfileSplit } from './page-profile.js'
import { worldCountries } from './real-data.js'

const ROUNDS = Number(process.argv[2] ?? 5)
const countries = worldCountries() as unknown[]
const fifty: unknown[] = []
while (JSON.stringify(fifty).length < 50_000) fifty.push(countries[fifty.length])
const json = Buffer.from(JSON.stringify(fifty))
const envelope = createCodec().encode(fifty)
const bodies = {
  json: { bytes: json, etag: `"${createHash('sha1').update(json).digest('hex')}"`, type: 'application/json' },
  stowage: { bytes: envelope, etag: await envelopeEtag(envelope), type: 'application/vnd.stowage' },
}
const entry = join(dirname(fileURLToPath(import.meta.url)), 'browser', 'fetch-page.ts')
// Not minified: the profile names the functions.
const bundle = (await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022' })).outputFiles[0]!.text
const server = createServer((req, res) => {
  const [, kind] = (req.url ?? '/').split('/')
  if (req.url === '/page.js') return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle)
  if (kind !== 'json' && kind !== 'stowage') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><script type="module" src="/page.js"></script>')
  const { bytes, etag, type } = bodies[kind]
  const headers = { ETag: etag, 'Cache-Control': 'max-age=0', 'Content-Type': type, Vary: 'Accept' }
  if (req.headers['if-none-match'] === etag) return res.writeHead(304, headers).end()
  res.writeHead(200, { ...headers, 'Content-Length': String(bytes.length) }).end(bytes)
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`

const splits = new Map<string, ProfileSplit[]>()
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const method of (round % 2 === 0 ? ['json', 'stowage'] : ['stowage', 'json']) as FetchMethod[]) {
      const profileDir = mkdtempSync(join(tmpdir(), 'stowage-fetch-profile-'))
      try {
        for (const visit of ['first load', 'reload']) {
          process.stderr.write(`fetch-profile: ${method} ${visit} round ${round}\n`)
          const { result, profile } = await withPersistentPage(profileDir, origin, 'loadOnce', (page) => profiled(page, () => page.evaluate((m) => window.loadOnce(m, '50kB'), method), 50))
          const key = `${method} ${visit}`
          splits.set(key, [...(splits.get(key) ?? []), splitProfile(profile, '/page.js').set('wall', result.ms)])
        }
      } finally {
        rmSync(profileDir, { recursive: true, force: true })
      }
    }
  }
} finally {
  server.close()
}

const mean = (key: string, part: string) => meanOf(splits.get(key)!, part)
const lines = [
  `Chromium, the 50 kB object of fetch-bench.ts, V8's sampling profiler (every 50 µs) attached from just before the page's one load to just after it; means of ${ROUNDS} samples per row, a new browser on its own on-disk profile for each (the profiler slows the page: compare the rows with each other, not their walls with fetch-bench's). "JavaScript of the bundle": the page's own script (Stowage, idb, idb-keyval, fflate); "V8": what the profiler calls (program), V8's parser, compilers and runtime outside any function; busy time can pass the wall, as the profile spans more than the timed call.`,
  '',
  '| path | visit | wall ms | main thread busy ms | JavaScript of the bundle | native functions | V8 (program) | GC |',
  '|---|---|---|---|---|---|---|---|',
]
for (const method of ['json', 'stowage']) {
  for (const visit of ['first load', 'reload']) {
    const key = `${method} ${visit}`
    const cells = ['wall', 'busy', 'bundle', 'native', 'v8', 'gc'].map((p) => mean(key, p).toFixed(1))
    lines.push(`| ${method === 'json' ? 'JSON path' : 'fetchCached'} | ${visit} | ${cells.join(' | ')} |`)
  }
}
for (const visit of ['first load', 'reload']) {
  const runs = splits.get(`stowage ${visit}`)!
  const functions = new Set(runs.flatMap((s) => [...s.keys()].filter((k) => k.startsWith('self '))))
  const over = (ms: number) => [...functions].filter((f) => meanOf(runs, f) >= ms).length
  lines.push('', `fetchCached, ${visit}: the bundle's JavaScript ran in ${functions.size} functions; ${over(1)} took 1 ms or more of their own, ${over(0.2)} took 0.2 ms or more. Their own time, the most: ${topFunctions(runs, 'self', 10)}; with what they called: ${topFunctions(runs, 'total', 10)} (ms).`)
}
console.log(lines.join('\n'))
