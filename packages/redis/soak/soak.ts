// `pnpm soak` (not in CI): mixed get / set / getOrSet / chunked / bundle traffic from a Cache
// through a fault proxy to a redis-server of its own, with a fault injected every few seconds
// (latency, stalls, resets, refused and half-open connections). At the end the network heals and
// every value the cache acknowledged is read back: values lost must be 0, and RSS must be flat.
// SOAK_SECONDS sets the length (600 by default), SOAK_WORKERS the concurrency (16).
import { createCache, StowageError } from '@stowage/core'
import { startFaultProxy } from '@stowage/fault-proxy'
import { startRedisServer } from '@stowage/redis-server'
import { createRedisStore } from '../src/index.js'

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600)
const WORKERS = Number(process.env.SOAK_WORKERS ?? 16)
const KEYS_PER_WORKER = 50
const CHUNK_SIZE = 64 * 1024

const server = await startRedisServer()
const proxy = await startFaultProxy(server.port)
const store = createRedisStore({ url: proxy.url, commandTimeout: 300, chunkSize: CHUNK_SIZE })
const cache = createCache({ store, namespace: 'soak', leaseTime: 1_000 })

interface Versioned {
  readonly key: string
  readonly version: number
  readonly padding?: Uint8Array
}
const acked = new Map<string, number>() // key (or bundle#field) → highest version acknowledged
const errors = new Map<string, number>()
const latencies = new Float64Array(200_000) // a ring: the latest operations
let operations = 0
let checked = 0

const ack = (key: string, version: number) => acked.set(key, Math.max(acked.get(key) ?? 0, version))
const failed = (e: unknown) => {
  const code = StowageError.isInstance(e) ? e.code : `not a StowageError: ${String((e as Error)?.message ?? e).slice(0, 60)}`
  errors.set(code, (errors.get(code) ?? 0) + 1)
}
// A value read back must be one this key was given, never another key's or a torn one.
const check = (key: string, value: unknown) => {
  if (value === undefined) return
  const v = value as Versioned
  checked++
  if (v.key !== key) throw new Error(`read ${JSON.stringify(v.key)} under ${key}`)
}

async function worker(w: number, until: number): Promise<void> {
  const version = new Map<string, number>()
  const next = (key: string) => {
    const n = (version.get(key) ?? 0) + 1
    version.set(key, n)
    return n
  }
  while (Date.now() < until) {
    const key = `w${w}:k${Math.floor(Math.random() * KEYS_PER_WORKER)}`
    const roll = Math.random()
    const started = performance.now()
    try {
      if (roll < 0.4) check(key, await cache.get(key))
      else if (roll < 0.65) {
        const v = next(key)
        await cache.set(key, { key, version: v })
        ack(key, v)
      } else if (roll < 0.85) {
        // Not counted as acknowledged: getOrSet answers with a value the store may have refused.
        const v = next(key)
        check(key, await cache.getOrSet(key, async () => ({ key, version: v })))
      } else if (roll < 0.9) {
        const big = `${key}:big`
        const v = next(big)
        await cache.set(big, { key: big, version: v, padding: new Uint8Array(200_000).fill(v & 0xff) }) // 4 chunks
        ack(big, v)
        check(big, await cache.get(big))
      } else {
        const bundle = cache.bundle(`w${w}:bundle`)
        const field = `f${Math.floor(Math.random() * 8)}`
        const id = `w${w}:bundle#${field}`
        const v = next(id)
        await bundle.set(field, { key: id, version: v })
        ack(id, v)
        check(id, await bundle.get(field))
      }
    } catch (e) {
      failed(e)
    }
    latencies[operations++ % latencies.length] = performance.now() - started
  }
}

// A fault every 6–10 s, lasting 1–3 s.
const faults = ['latency', 'stall', 'reset', 'half-open', 'refuse'] as const
const injected = new Map<string, number>()
async function injector(until: number): Promise<void> {
  while (Date.now() < until - 4_000) {
    await new Promise((r) => setTimeout(r, 6_000 + Math.random() * 4_000))
    const fault = faults[Math.floor(Math.random() * faults.length)] as (typeof faults)[number]
    injected.set(fault, (injected.get(fault) ?? 0) + 1)
    if (fault === 'latency') proxy.latency(500)
    else if (fault === 'stall') proxy.mode('stall')
    else if (fault === 'reset') proxy.reset()
    else if (fault === 'half-open') proxy.halfOpen()
    else {
      proxy.mode('refuse')
      proxy.reset()
    }
    await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 2_000))
    proxy.latency(0)
    proxy.mode('pass')
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const started = Date.now()
const until = started + SECONDS * 1000
// RSS once the traffic has warmed up, and at the end.
let rssStart = 0
setTimeout(() => (rssStart = process.memoryUsage().rss), Math.min(20_000, (SECONDS * 1000) / 5)).unref()
const progress = setInterval(() => {
  process.stderr.write(`\r${Math.round((Date.now() - started) / 1000)} s, ${operations.toLocaleString('en')} operations, ${[...errors.values()].reduce((a, b) => a + b, 0)} errors, RSS ${mb(process.memoryUsage().rss)}   `)
}, 1000)
await Promise.all([injector(until), ...Array.from({ length: WORKERS }, (_, w) => worker(w, until))])
clearInterval(progress)
const rssEnd = process.memoryUsage().rss
process.stderr.write('\n')

// The network heals; every acknowledged value must be there, at its version or a later one (a
// write that timed out may still have been applied).
proxy.latency(0)
proxy.mode('pass')
const reader = createCache({ store: createRedisStore({ url: server.url, chunkSize: CHUNK_SIZE }), namespace: 'soak', local: false, breaker: false })
let lost = 0
const lostExamples: string[] = []
for (const [id, version] of acked) {
  const [key, field] = id.split('#') as [string, string | undefined]
  const value = (field === undefined ? await reader.get(key) : await reader.bundle(key).get(field)) as Versioned | undefined
  if (value === undefined || value.version < version) {
    lost++
    if (lostExamples.length < 5) lostExamples.push(`${id}: acknowledged v${version}, read ${value === undefined ? 'nothing' : `v${value.version}`}`)
  }
}
const count = Math.min(operations, latencies.length)
const sorted = Array.from(latencies.subarray(0, count)).sort((a, b) => a - b)
const pct = (p: number) => (sorted[Math.min(count - 1, Math.floor(count * p))] ?? 0).toFixed(2)
const seconds = (Date.now() - started) / 1000
console.log(`soak: ${SECONDS} s, ${WORKERS} workers, faults injected: ${[...injected].map(([f, n]) => `${f} ×${n}`).join(', ')}`)
console.log(`operations: ${operations.toLocaleString('en')} (${Math.round(operations / SECONDS).toLocaleString('en')}/s), latency p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`)
console.log(`errors by code: ${errors.size === 0 ? 'none' : [...errors].map(([c, n]) => `${c} ${n.toLocaleString('en')}`).join(', ')}`)
console.log(`values checked on read: ${checked.toLocaleString('en')}; acknowledged values read back at the end: ${acked.size.toLocaleString('en')}; values lost: ${lost}`)
for (const example of lostExamples) console.log(`  lost: ${example}`)
console.log(`RSS: ${mb(rssStart)} after warm-up, ${mb(rssEnd)} at the end${rssStart > 0 ? ` (${(rssEnd / rssStart).toFixed(2)}×)` : ''}; ${seconds.toFixed(0)} s in all`)
await reader.close()
await store.close()
await proxy.close()
await server.stop()
// Every failure must be a typed StowageError (a wrong value read counts as one that is not).
const untyped = [...errors.keys()].some((code) => code.startsWith('not a StowageError'))
process.exit(lost === 0 && !untyped ? 0 : 1)
