// The demo server: realistic objects cached in Redis through @stowage/redis (or in memory when no
// Redis is reachable), served as the envelope bytes themselves (application/vnd.stowage, with an
// ETag, through @stowage/http) or as JSON for comparison, plus stats, invalidation and server-sent events.
// Plain node:http: six routes do not need a framework, and the demo stays one dependency lighter.
import { w1, w2, w4 } from '@stowage/bench/workloads'
import { createCache, createMemoryStore, inspect, type Cache, type Codec, type Store } from '@stowage/core'
import { envelopeResponse, fromNodeRequest, sendNodeResponse, serveCached } from '@stowage/http'
import { createRedisStore } from '@stowage/redis'
import { Redis } from 'ioredis'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { extname, join, normalize } from 'node:path'
import { DATASET_LABELS, type DatasetName } from '../page/datasets.js'
import { allowedHosts, hostAllowed, sameOrigin } from './guard.js'


// The countries app's data: the `world-countries` npm package (250 countries, real data).
interface Country {
  readonly cca3: string
  readonly name: { readonly common: string; readonly official: string }
  readonly capital: readonly string[]
  readonly region: string
  readonly subregion: string
  readonly area: number
  readonly flag: string
  readonly borders: readonly string[]
  readonly languages: Readonly<Record<string, string>>
  readonly currencies: Readonly<Record<string, { readonly name: string; readonly symbol?: string }>>
}
const countries = createRequire(import.meta.url)('world-countries') as readonly Country[]
// The list shows a summary of each; a country's page the whole record.
const countryList = () =>
  countries.map((c) => ({ cca3: c.cca3, name: c.name.common, capital: c.capital[0] ?? '', region: c.region, subregion: c.subregion, area: c.area, flag: c.flag }))

// How each object the demo serves is made (page/datasets.ts names and labels them).
const makers: Record<DatasetName, () => unknown> = {
  'items-100': () => w1(100),
  'items-1000': () => w1(1000),
  'items-100000': () => w1(100000),
  post: () => w2(),
  countries: () => countries,
  session: () => w4(),
}
/** The objects the demo serves, by name. */
const datasets: Record<string, { readonly label: string; make(): unknown }> = Object.fromEntries(
  Object.entries(makers).map(([name, make]) => [name, { label: DATASET_LABELS[name as DatasetName], make }]),
)

export interface DemoOptions {
  /** Redis to cache in; without it the embedded memory store is used. */
  readonly redisUrl?: string
  /** Key namespace in Redis. Defaults to `'demo'`. */
  readonly namespace?: string
  /** Directory of the built page. Defaults to apps/demo/dist. */
  readonly pageDir?: string
  /** Port; 0 picks a free one. Defaults to 3000. */
  readonly port?: number
}

export interface Demo {
  readonly url: string
  readonly store: 'redis' | 'memory'
  close(): Promise<void>
}

interface Figures {
  jsonBytes: number
  stowageBytes: number
  redisJson: number | null
  redisStowage: number | null
  sha256: string
  encodeMs: number
  decodeMs: number
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
// The MessagePack an envelope holds, inflated: what both sides compare (a browser keeps a deflated
// envelope inflated, so the envelopes themselves differ there while the MessagePack is the same).
const payloadOf = (codec: Codec, bytes: Uint8Array) => {
  const plain = codec.inflateEnvelope(bytes)
  return plain.subarray(plain.length - inspect(plain).payloadLength)
}

function median(fn: () => void, runs = 5): number {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    fn()
    times.push(performance.now() - t)
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] as number
}

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const namespace = options.namespace ?? 'demo'
  const pageDir = options.pageDir ?? join(import.meta.dirname, '..', 'dist')
  const redis = options.redisUrl ? new Redis(options.redisUrl, { maxRetriesPerRequest: 1 }) : undefined
  redis?.on('error', () => {})
  const store: Store = redis ? createRedisStore({ client: redis }) : createMemoryStore()
  const cache: Cache = createCache({ store, namespace, ttl: 10 * 60_000 })
  const revisions = new Map<string, number>()
  const figures = new Map<string, Figures>()
  const counters = { hits: 0, misses: 0, notModified: 0 }
  // The keys this run wrote (a hit writes nothing): the only ones it deletes when it stops.
  const written = new Set<string>()
  // The datasets whose JSON copy this run wrote beside them in Redis.
  const writtenJson = new Set<string>()
  let hosts: ReadonlySet<string> = new Set()
  const listeners = new Set<ServerResponse>()

  // The envelope for a dataset: from the cache, or made, measured and cached.
  async function envelope(name: string): Promise<Uint8Array> {
    const cached = await cache.getBytes(name)
    if (cached !== undefined) {
      counters.hits++
      return cached
    }
    counters.misses++
    const value = { revision: revisions.get(name) ?? 1, generatedAt: new Date(), data: datasets[name]!.make() }
    await cache.set(name, value)
    written.add(name)
    const bytes = (await cache.getBytes(name)) as Uint8Array
    const json = JSON.stringify(value)
    let redisJson: number | null = null
    let redisStowage: number | null = null
    if (redis) {
      // A JSON copy beside it, only to show what Redis would hold for JSON.
      await redis.set(`${namespace}-json:${name}`, json, 'PX', 10 * 60_000)
      writtenJson.add(name)
      redisJson = await redis.memory('USAGE', `${namespace}-json:${name}`, 'SAMPLES', '0')
      redisStowage = await redis.memory('USAGE', `${namespace}:${name}`, 'SAMPLES', '0')
    }
    figures.set(name, {
      jsonBytes: Buffer.byteLength(json),
      stowageBytes: bytes.length,
      redisJson,
      redisStowage,
      sha256: sha256(payloadOf(cache.codec, bytes)),
      encodeMs: median(() => cache.codec.encode(value)),
      decodeMs: median(() => cache.codec.decode(bytes)),
    })
    return bytes
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req, hosts)) return void res.writeHead(421, { 'Content-Type': 'text/plain' }).end('this server answers only to 127.0.0.1 and localhost')
    const url = new URL(req.url ?? '/', 'http://localhost')
    const data = /^\/api\/data\/([\w-]+)$/.exec(url.pathname)
    if (data && (req.method === 'GET' || req.method === 'HEAD')) {
      const name = data[1] as string
      if (!Object.hasOwn(datasets, name)) return void res.writeHead(404).end()
      // The envelope as stored, its ETag, 304s and JSON on request: @stowage/http's helper.
      const response = await envelopeResponse(fromNodeRequest(req), await envelope(name), { codec: cache.codec })
      if (response.status === 304) counters.notModified++
      return sendNodeResponse(res, response)
    }
    // The countries app: each entry served as the envelope the cache holds (loaded on a miss).
    const country = /^\/api\/countries(?:\/([A-Z]{3}))?$/.exec(url.pathname)
    if (country && (req.method === 'GET' || req.method === 'HEAD')) {
      const code = country[1]
      const record = code === undefined ? undefined : countries.find((c) => c.cca3 === code)
      if (code !== undefined && record === undefined) return void res.writeHead(404).end()
      // Under `app:`, which no dataset name (letters, digits, - and _) can take: the bytes page's
      // `countries` is another value.
      const key = code === undefined ? 'app:countries' : `app:country:${code}`
      const load = () => {
        written.add(key) // called on a miss only: this run writes the key
        return record ?? countryList()
      }
      const response = await serveCached(fromNodeRequest(req), { cache, key, load })
      if (response.status === 304) counters.notModified++
      return sendNodeResponse(res, response)
    }
    const invalidate = /^\/api\/invalidate\/([\w-]+)$/.exec(url.pathname)
    if (invalidate && req.method === 'POST') {
      if (!sameOrigin(req)) return void res.writeHead(403, { 'Content-Type': 'text/plain' }).end('state changes only from this server\'s own pages')
      const name = invalidate[1] as string
      if (!Object.hasOwn(datasets, name)) return void res.writeHead(404).end()
      revisions.set(name, (revisions.get(name) ?? 1) + 1)
      await cache.delete(name)
      figures.delete(name)
      for (const listener of listeners) listener.write(`event: invalidate\ndata: ${JSON.stringify({ name })}\n\n`)
      return void res.writeHead(204).end()
    }
    if (url.pathname === '/api/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
      res.write(': connected\n\n')
      listeners.add(res)
      req.on('close', () => listeners.delete(res))
      return
    }
    if (url.pathname === '/api/stats') {
      const body = {
        store: redis ? 'redis' : 'memory',
        banner: redis ? undefined : 'No Redis reachable: the server caches in memory (the embedded store). Set REDIS_URL, or install redis-server, and restart to cache in Redis.',
        datasets: Object.fromEntries(Object.entries(datasets).map(([name, d]) => [name, { label: d.label, revision: revisions.get(name) ?? 1, ...figures.get(name) }])),
        server: { ...counters, cache: cache.stats() },
      }
      return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body))
    }
    // The built page.
    const file = normalize(join(pageDir, url.pathname === '/' ? 'index.html' : url.pathname))
    if (!file.startsWith(pageDir)) return void res.writeHead(403).end()
    try {
      const body = await readFile(file)
      const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png' }[extname(file)] ?? 'application/octet-stream'
      res.writeHead(200, { 'Content-Type': type }).end(body)
    } catch {
      res.writeHead(404).end('not found: run the demo through `pnpm demo`, which builds the page first')
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' })
      res.end(String(e))
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  hosts = allowedHosts(port)
  return {
    url: `http://127.0.0.1:${port}`,
    store: redis ? 'redis' : 'memory',
    async close() {
      for (const listener of listeners) listener.end()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      // Only what this run wrote: a shared Redis may hold other demo keys (another run's, yours).
      if (written.size > 0) await cache.deleteMany([...written]).catch(() => {})
      if (writtenJson.size > 0) await redis?.del(...[...writtenJson].map((name) => `${namespace}-json:${name}`)).catch(() => {})
      await redis?.quit().catch(() => {})
    },
  }
}
