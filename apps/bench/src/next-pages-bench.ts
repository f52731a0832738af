// Next.js pages cached in Redis (issue 26): Redis bytes per cached page and the time to serve a
// cached page, @stowage/next against @fortedigital/nextjs-cache-handler 3.3 (its defaults, and with
// the gzip valueSerializer its README gives), on one app of real data (next-pages/: 50 product
// pages, each a GitHub webhook payload of 8 kB of JSON or more fetched through Next's fetch cache
// and rendered whole). Per handler: a redis-server of its own, two `next start` instances of one
// `next build`; instance A renders every page, then instance B is asked for each (is it A's render,
// and does B render it again?), then every key's `MEMORY USAGE … SAMPLES 0` is summed, then B
// serves each cached page ROUNDS times (p50, p99). The handlers take turns twice, the second time
// in the reverse order (latency: the mean of the two runs' p50s and p99s). The pages are rendered
// on demand (generateStaticParams returns none), where a handler that drops an entry's
// cacheControl has another instance serve it STALE and render it again. Prints Markdown and a
// RESULT line.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, startRedisServer, type RedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { webhookPayloads } from './real-data.js'

const PAGES = 50
const ROUNDS = Number(process.env.NEXT_PAGES_ROUNDS ?? 10)
const app = join(dirname(fileURLToPath(import.meta.url)), '..', 'next-pages')
const next = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'next')
const handlers = [
  ['forte', '@fortedigital/nextjs-cache-handler 3.3 (redis-strings, defaults)'],
  ['forte-gzip', '@fortedigital/nextjs-cache-handler 3.3, gzip valueSerializer'],
  ['stowage', '@stowage/next (createCacheHandler over @stowage/redis)'],
] as const
type Handler = (typeof handlers)[number][0]

// The pages' data: the first 50 webhook payloads of 8 kB of JSON or more, served by id.
const payloads = webhookPayloads()
  .map((v) => JSON.stringify(v))
  .filter((json) => json.length >= 8000)
  .slice(0, PAGES)
const data = createServer((req, res) => {
  const json = payloads[Number(req.url?.slice(1))]
  if (json === undefined) return res.writeHead(404).end()
  res.writeHead(200, { 'Content-Type': 'application/json' }).end(json)
})
await new Promise<void>((resolve) => data.listen(0, '127.0.0.1', resolve))
const dataUrl = `http://127.0.0.1:${(data.address() as { port: number }).port}`

const env = (handler: Handler, redis: RedisServer): NodeJS.ProcessEnv => ({ ...process.env, NEXT_TELEMETRY_DISABLED: '1', BENCH_HANDLER: handler, REDIS_URL: redis.url, DATA_URL: dataUrl })

async function start(handler: Handler, redis: RedisServer): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(next, ['start', '-p', String(port), '-H', '127.0.0.1'], { cwd: app, env: env(handler, redis), stdio: ['ignore', 'ignore', 'inherit'] })
  const deadline = Date.now() + 60_000
  for (;;) {
    try {
      if ((await fetch(`${url}/none`)).status === 404) return { url, child }
    } catch {}
    if (Date.now() > deadline) throw new Error('next start did not answer')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

async function page(url: string, id: number): Promise<{ status: number; cache: string | null; rendered: string | undefined; ms: number; bytes: number }> {
  const t = performance.now()
  const response = await fetch(`${url}/product/${id}`)
  const html = await response.text()
  return { status: response.status, cache: response.headers.get('x-nextjs-cache'), rendered: /rendered by \d+ at \d+/.exec(html)?.[0], ms: performance.now() - t, bytes: Buffer.byteLength(html) }
}

async function rsc(url: string, id: number): Promise<number> {
  const response = await fetch(`${url}/product/${id}`, { headers: { RSC: '1' } })
  return (await response.arrayBuffer()).byteLength
}

interface Run {
  readonly handler: Handler
  readonly bytesPerPage: number
  readonly keysPerPage: number
  readonly hits: number
  readonly sameRender: number
  readonly renderedAgain: number
  readonly errors: number
  readonly p50: number
  readonly p99: number
  readonly htmlBytes: number
  readonly rscBytes: number
  /** The x-nextjs-cache headers of B's timed responses, with their counts. */
  readonly servedAs: string
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] as number

async function measure(handler: Handler): Promise<Run> {
  const redis = await startRedisServer()
  const instances: Array<{ url: string; child: ChildProcess }> = []
  try {
    instances.push(await start(handler, redis), await start(handler, redis))
    const [a, b] = [instances[0]!, instances[1]!]
    let errors = 0
    const firsts: string[] = []
    let htmlBytes = 0
    for (let id = 0; id < PAGES; id++) {
      const first = await page(a.url, id)
      if (first.status !== 200) errors++
      firsts.push(first.rendered ?? '')
      htmlBytes += first.bytes
    }
    // Let A's writes land (the handlers write after the response).
    await new Promise((resolve) => setTimeout(resolve, 1000))
    let hits = 0
    let sameRender = 0
    for (let id = 0; id < PAGES; id++) {
      const second = await page(b.url, id)
      if (second.status !== 200) errors++
      if (second.cache === 'HIT') hits++
      if (second.rendered === firsts[id]) sameRender++
    }
    // A page B served stale is rendered again by B in the background: ask again once that is done.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    let renderedAgain = 0
    for (let id = 0; id < PAGES; id++) {
      const third = await page(b.url, id)
      if (third.status !== 200) errors++
      if (third.rendered !== firsts[id]) renderedAgain++
    }
    const client = new Redis(redis.url)
    let bytes = 0
    let keys = 0
    for await (const batch of client.scanStream({ count: 1000 })) {
      for (const key of batch as string[]) {
        bytes += Number(await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'))
        keys++
      }
    }
    client.disconnect()
    let rscBytes = 0
    for (let id = 0; id < PAGES; id++) rscBytes += await rsc(b.url, id)
    const times: number[] = []
    const servedAs = new Map<string, number>()
    for (let r = 0; r < ROUNDS; r++) {
      for (let id = 0; id < PAGES; id++) {
        const served = await page(b.url, id)
        if (served.status !== 200) errors++
        times.push(served.ms)
        servedAs.set(served.cache ?? 'none', (servedAs.get(served.cache ?? 'none') ?? 0) + 1)
      }
    }
    return {
      servedAs: [...servedAs].map(([k, n]) => `${k} ${n}`).join(', '), handler, bytesPerPage: bytes / PAGES, keysPerPage: keys / PAGES, hits, sameRender, renderedAgain, errors, p50: quantile(times, 0.5), p99: quantile(times, 0.99), htmlBytes: htmlBytes / PAGES, rscBytes: rscBytes / PAGES }
  } finally {
    for (const { child } of instances) child.kill()
    await redis.stop()
  }
}

// One build for every handler (the handler is chosen when `next start` loads it).
const buildRedis = await startRedisServer()
const built = spawnSync(next, ['build'], { cwd: app, env: env('stowage', buildRedis), encoding: 'utf8' })
await buildRedis.stop()
if (built.status !== 0) throw new Error(`next build failed:\n${built.stdout}\n${built.stderr}`)

const runs: Run[] = []
for (let pass = 0; pass < 2; pass++) {
  // The second pass takes the handlers in the reverse order, so that none is always first after the build.
  for (const [handler] of pass === 0 ? handlers : [...handlers].reverse()) {
    process.stderr.write(`next-pages-bench: ${handler}, pass ${pass + 1}\n`)
    runs.push(await measure(handler))
  }
}
data.close()

const of = (handler: Handler) => runs.filter((r) => r.handler === handler)
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const summary = handlers.map(([handler, name]) => {
  const rs = of(handler)
  const r = rs[0]!
  return { handler, name, bytesPerPage: r.bytesPerPage, keysPerPage: r.keysPerPage, hits: Math.min(...rs.map((x) => x.hits)), sameRender: Math.min(...rs.map((x) => x.sameRender)), renderedAgain: Math.max(...rs.map((x) => x.renderedAgain)), errors: Math.max(...rs.map((x) => x.errors)), p50: mean(rs.map((x) => x.p50)), p50s: rs.map((x) => x.p50), p99: mean(rs.map((x) => x.p99)), htmlBytes: r.htmlBytes, rscBytes: r.rscBytes, servedAs: rs.map((x) => x.servedAs).join('; ') }
})
const forte = summary.find((s) => s.handler === 'forte')!
const gzip = summary.find((s) => s.handler === 'forte-gzip')!
const stowage = summary.find((s) => s.handler === 'stowage')!
const lines = [
  `${spawnSync(next, ['--version'], { encoding: 'utf8' }).stdout.trim()}, two \`next start\` instances per handler over a redis-server of its own, ${PAGES} product pages of real data (${Math.round(forte.htmlBytes / 1000)} kB of HTML and ${Math.round(forte.rscBytes / 1000)} kB of RSC payload per page on average). Redis bytes: \`MEMORY USAGE … SAMPLES 0\` of every key after A rendered every page and B was asked for each, ÷ ${PAGES}. Serving: B's responses for cached pages, ${ROUNDS} rounds over the ${PAGES} pages, one request at a time; p50 and p99 are the mean of the two runs' (the second pass takes the handlers in the reverse order).`,
  '',
  `| handler | Redis bytes per page | × fortedigital | × fortedigital + gzip | keys per page | B: HIT of ${PAGES} | B: A's render of ${PAGES} | B rendered again | errors | serve p50 ms: mean (the two runs) | serve p99 ms | B's timed answers (x-nextjs-cache) |`,
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...summary.map((s) => `| ${s.name} | ${Math.round(s.bytesPerPage).toLocaleString('en')} | ${(s.bytesPerPage / forte.bytesPerPage).toFixed(3)} | ${(s.bytesPerPage / gzip.bytesPerPage).toFixed(3)} | ${s.keysPerPage.toFixed(1)} | ${s.hits} | ${s.sameRender} | ${s.renderedAgain} | ${s.errors} | ${s.p50.toFixed(2)} (${s.p50s.map((x) => x.toFixed(2)).join(', ')}) | ${s.p99.toFixed(2)} | ${s.servedAs} |`),
  '',
]
console.log(lines.join('\n'))
const targets: Array<[string, number, boolean]> = [
  ['Next.js pages: Redis bytes per cached page ≤ 0.25× @fortedigital/nextjs-cache-handler (defaults)', stowage.bytesPerPage / forte.bytesPerPage, stowage.bytesPerPage <= 0.25 * forte.bytesPerPage],
  ['Next.js pages: Redis bytes per cached page ≤ 0.9× @fortedigital/nextjs-cache-handler with its gzip serializer', stowage.bytesPerPage / gzip.bytesPerPage, stowage.bytesPerPage <= 0.9 * gzip.bytesPerPage],
  ['Next.js pages: a cached page served no slower than with @fortedigital/nextjs-cache-handler (p50, ×)', stowage.p50 / forte.p50, stowage.p50 <= forte.p50],
  [`Next.js pages: 0 of ${PAGES} pages rendered again by the second instance, 0 errors`, stowage.renderedAgain + stowage.errors, stowage.renderedAgain === 0 && stowage.errors === 0 && stowage.sameRender === PAGES],
]
console.log(['| issue 26 target | measured | |', '|---|---|---|', ...targets.map(([name, value, ok]) => `| ${name.replace('Next.js pages: ', '')} | ${name.includes('rendered again') ? value : `${value.toFixed(3)}×`} | ${ok ? 'met' : '**missed**'} |`), ''].join('\n'))
console.log(`RESULT ${JSON.stringify(targets)}`)
