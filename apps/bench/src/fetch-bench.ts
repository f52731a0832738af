// fetchCached on an app's first screen (issue 18): a real 50 kB object and a 2 MB one (countries of
// the `world-countries` npm package) fetched from a loopback server and kept in IndexedDB, in a
// browser started anew on an on-disk profile for every sample, so that opening the database is in
// every figure. First load (nothing stored) and reload (stored: a 304 for Stowage's revalidation,
// the browser's own HTTP cache revalidating for the JSON path), against fetch → res.json() → an
// idb-keyval write. `--browser firefox` runs the same in Debian's firefox-esr. Prints Markdown and a
// RESULT line.
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
import { withPersistentFirefoxPage, withPersistentPage } from './browser-page.js'
import { worldCountries } from './real-data.js'

// Samples per cell; FETCH_ROUNDS sets another count (the figures of one run of 7 move by ±0.2× between runs).
const ROUNDS = Number(process.env.FETCH_ROUNDS ?? 7)
const firefox = process.argv.includes('--browser') && process.argv[process.argv.indexOf('--browser') + 1] === 'firefox'
const countries = worldCountries() as unknown[]
// The first countries up to ~50 kB of JSON, and all of them three times over (~2 MB).
const fifty: unknown[] = []
while (JSON.stringify(fifty).length < 50_000) fifty.push(countries[fifty.length])
const big = [...countries, ...countries, ...countries]
const sets: Record<string, unknown[]> = { '50kB': fifty, '2MB': big }
// The 50 kB object again from a server 40 ms away (its answers wait 40 ms), as a real network is:
// every path pays the wait, and whatever a path does before its request is no longer hidden by a
// loopback that answers at once. Not a target (those are on loopback), a condition beside them.
const AWAY = '50kB, 40 ms away'
const AWAY_MS = 40
const codec = createCodec()
const bodies: Record<string, { json: Buffer; jsonEtag: string; envelope: Uint8Array; envelopeEtag: string }> = Object.fromEntries(
  await Promise.all(
    Object.entries(sets).map(async ([name, value]) => {
      const json = Buffer.from(JSON.stringify(value))
      const envelope = codec.encode(value)
      return [name, { json, jsonEtag: `"${createHash('sha1').update(json).digest('hex')}"`, envelope, envelopeEtag: await envelopeEtag(envelope) }]
    }),
  ),
)

bodies[AWAY] = bodies['50kB']!
const sampled = [...Object.keys(sets), AWAY]

const entry = join(dirname(fileURLToPath(import.meta.url)), 'browser', 'fetch-page.ts')
const bundle = (await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022', minify: true })).outputFiles[0]!.text
const server = createServer((req, res) => {
  const [, kind, escaped] = (req.url ?? '/').split('/')
  const name = decodeURIComponent(escaped ?? '')
  if (req.url === '/page.js') return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle)
  const body = bodies[name ?? '']
  if (body === undefined || (kind !== 'json' && kind !== 'stowage')) return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><script type="module" src="/page.js"></script>')
  // Both as a server that keeps the bytes would send them: a validator, revalidate every time.
  const [bytes, etag, type] = kind === 'json' ? [body.json, body.jsonEtag, 'application/json'] : [body.envelope, body.envelopeEtag, 'application/vnd.stowage']
  const headers = { ETag: etag, 'Cache-Control': 'max-age=0', 'Content-Type': type, Vary: 'Accept' }
  const answer = () => {
    if (req.headers['if-none-match'] === etag) return res.writeHead(304, headers).end()
    res.writeHead(200, { ...headers, 'Content-Length': String(bytes.length) }).end(bytes)
  }
  if (name === AWAY) setTimeout(answer, AWAY_MS)
  else answer()
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`

let version = ''
async function once(profile: string, method: FetchMethod, name: string): Promise<{ ms: number; source: string }> {
  if (firefox) {
    return withPersistentFirefoxPage(profile, origin, 'loadOnce', (page) => {
      version = page.version
      return page.evaluate(([m, n]) => window.loadOnce(m, n), [method, name] as const)
    })
  }
  return withPersistentPage(profile, origin, 'loadOnce', (page) => {
    version = page.context().browser()?.version() ?? version
    return page.evaluate(([m, n]) => window.loadOnce(m, n), [method, name] as const)
  })
}

const samples = new Map<string, number[]>()
const sources = new Map<string, string>()
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of sampled) {
      for (const method of (round % 2 === 0 ? ['json', 'stowage'] : ['stowage', 'json']) as FetchMethod[]) {
        const profile = mkdtempSync(join(tmpdir(), 'stowage-fetch-'))
        try {
          for (const visit of ['first load', 'reload']) {
            process.stderr.write(`fetch-bench: ${method} ${name} ${visit} round ${round}\n`)
            const { ms, source } = await once(profile, method, name)
            const key = `${method} ${name} ${visit}`
            samples.set(key, [...(samples.get(key) ?? []), ms])
            sources.set(key, source)
          }
        } finally {
          rmSync(profile, { recursive: true, force: true })
        }
      }
    }
  }
} finally {
  server.close()
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const med = (key: string) => median(samples.get(key)!)
const lines = [
  `${firefox ? `Firefox ESR ${version.replace(/^firefox\//, '')}` : `Chromium ${version}`} (headless, Debian build). Each sample: a browser started on its own on-disk profile, a page that loads the data once (opening the database included), the browser closed; then the same for the reload. Medians of ${ROUNDS} samples, the order of the methods alternating. JSON path: \`fetch\` → \`res.json()\` → idb-keyval \`set\` (a structured clone); Stowage: \`fetchCached\` into a Cache over \`@stowage/idb\` (the envelope as sent by a Node server: deflated; the request leaves before the database has answered, with the validator remembered in \`localStorage\` on a reload). \"40 ms away\": the server waits 40 ms before each answer, as a network would.`,
  '',
  '| data | visit | JSON path ms | fetchCached ms | ×JSON path | Stowage\'s answer |',
  '|---|---|---|---|---|---|',
]
const targets: Array<[string, number, boolean]> = []
for (const name of sampled) {
  for (const visit of ['first load', 'reload']) {
    const ratio = med(`stowage ${name} ${visit}`) / med(`json ${name} ${visit}`)
    lines.push(`| ${name} (${(bodies[name]!.json.length / 1000).toFixed(0)} kB of JSON, ${(bodies[name]!.envelope.length / 1000).toFixed(1)} kB envelope) | ${visit} | ${med(`json ${name} ${visit}`).toFixed(1)} | ${med(`stowage ${name} ${visit}`).toFixed(1)} | ${ratio.toFixed(2)} | ${sources.get(`stowage ${name} ${visit}`)} |`)
    if (name === '50kB') targets.push([`${firefox ? 'Firefox: ' : ''}fetchCached of a 50 kB object, ${visit}, ≤ 1.2× fetch + res.json() + an idb-keyval write`, ratio, ratio <= 1.2])
  }
}
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(targets)}`)
