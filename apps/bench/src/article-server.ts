// The seed article's server ("How to Boost JavaScript Objects Storage on Redis"): Fastify with
// @fastify/redis (ioredis), one POST handler that returns an array of N items, cached under one
// Redis key; the first request builds and stores it, every later one reads Redis. One variant per
// process, started by article-bench.ts, which drives it with autocannon from another process.
//
// Environment: ARTICLE_VARIANT (a name of VARIANTS), ARTICLE_N, ARTICLE_NAMESPACE, ARTICLE_KEY, REDIS_URL.
// Prints `LISTENING <port>` once it listens on 127.0.0.1. GET /__stats answers the main thread's
// GC pauses so far (PerformanceObserver 'gc'), its CPU time and the clock, so the bench can tell
// what share of a run went to garbage collection. GET /__cpu/start and /__cpu/stop?file=… profile
// the CPU, /__heap/start and /__heap/stop?file=… sample allocations, garbage included (V8's
// sampling heap profiler keeps only live objects unless told otherwise). SIGTERM closes the
// server and exits.
import fastifyRedis from '@fastify/redis'
import { createCache, decode, encode } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import fastify from 'fastify'
import type { Redis } from 'ioredis'
import { Packr } from 'msgpackr'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { PerformanceObserver, performance, constants } from 'node:perf_hooks'
import { w1 } from './workloads.js'

/** What each variant's handler does with the Redis client; `load` builds the value on a miss. */
type Handler = (redis: Redis, key: string, load: () => unknown) => Promise<unknown>

// As the article: JSON text, and msgpackr with shared structures kept in this process.
const packr = new Packr({ maxSharedStructures: 8160, structures: [] })

// The Cache's key under its namespace is `<namespace>:article`: the raw variants are given a key of
// the same length (ARTICLE_KEY), so MEMORY USAGE compares the values alone.
const NAMESPACE = process.env.ARTICLE_NAMESPACE ?? 'bench'
const CACHE_KEY = 'article'

const VARIANTS: Record<string, (redis: Redis) => Handler> = {
  JSON: () => async (redis, key, load) => {
    const cached = await redis.get(key)
    if (cached !== null) return JSON.parse(cached)
    const value = load()
    await redis.set(key, JSON.stringify(value))
    return value
  },
  msgpackr: () => async (redis, key, load) => {
    const cached = await redis.getBuffer(key)
    if (cached !== null) return packr.unpack(cached)
    const value = load()
    await redis.set(key, packr.pack(value))
    return value
  },
  // The article's handler with Stowage's functions in place of pack/unpack: nothing else changes.
  'Stowage codec': () => async (redis, key, load) => {
    const cached = await redis.getBuffer(key)
    if (cached !== null) return decode(cached)
    const value = load()
    await redis.set(key, encode(value) as Buffer)
    return value
  },
  // Every request reads Redis, as the article's handlers do.
  'Stowage Cache, local tier off': (redis) => {
    const cache = createCache({ store: createRedisStore({ client: redis }), namespace: NAMESPACE, ttl: 60_000, local: false })
    return (_redis, _key, load) => cache.getOrSet(CACHE_KEY, load)
  },
  // As the README configures it in front of Redis: the in-process tier on (its default).
  'Stowage Cache (README)': (redis) => {
    const cache = createCache({ store: createRedisStore({ client: redis }), namespace: NAMESPACE, ttl: 60_000 })
    return (_redis, _key, load) => cache.getOrSet(CACHE_KEY, load)
  },
  // No cache at all: the value built once and handed out from memory, as no cache can beat. What
  // is left of a request is Fastify's work, its JSON serialization of the reply most of all.
  'in-process value, no Redis (ceiling)': () => {
    let kept: unknown
    return async (_redis, _key, load) => (kept ??= load())
  },
}

const variant = process.env.ARTICLE_VARIANT ?? 'JSON'
const n = Number(process.env.ARTICLE_N ?? 1000)
const key = process.env.ARTICLE_KEY ?? `${NAMESPACE}:${CACHE_KEY}`
const make = VARIANTS[variant]
if (make === undefined) throw new Error(`unknown variant ${variant}`)

let gcMs = 0
let gcCount = 0
let minorGcCount = 0
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration
    gcCount++
    if (((entry as { detail?: { kind?: number } }).detail)?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minorGcCount++
  }
}).observe({ entryTypes: ['gc'] })

const app = fastify()
await app.register(fastifyRedis, { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' })
const handler = make(app.redis)
app.post('/', () => handler(app.redis, key, () => w1(n)))
app.get('/__stats', () => {
  const cpu = process.cpuUsage()
  return { gcMs, gcCount, minorGcCount, cpuMs: (cpu.user + cpu.system) / 1000, now: performance.now() }
})
// Profiles of the load alone (not of startup): V8's CPU profiler (what --cpu-prof runs) and its
// sampling heap profiler, through the inspector, from /start to /stop?file=….
let inspector: Session | undefined
app.get<{ Params: { kind: 'cpu' | 'heap' } }>('/__:kind/start', async (request) => {
  inspector = new Session()
  inspector.connect()
  if (request.params.kind === 'cpu') {
    await inspector.post('Profiler.enable')
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 })
    await inspector.post('Profiler.start')
  } else {
    // Every 8 KiB allocated on average; objects that either GC collected stay in the profile.
    await inspector.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
  }
  return { ok: true }
})
app.get<{ Params: { kind: 'cpu' | 'heap' }; Querystring: { file: string } }>('/__:kind/stop', async (request) => {
  const { profile } = request.params.kind === 'cpu' ? await inspector!.post('Profiler.stop') : await inspector!.post('HeapProfiler.stopSampling')
  writeFileSync(request.query.file, JSON.stringify(profile))
  inspector!.disconnect()
  return { ok: true }
})
const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`LISTENING ${new URL(address).port}\n`)
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
