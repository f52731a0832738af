// Cache façades side by side (issue 10): Stowage's Cache against bentocache (default, and with its
// memory tier's `serialize: false`), cache-manager 7 and cacheable 2, each configured as its README
// shows, in this one process with ioredis loaded. Two setups: the in-process tier alone, and an
// in-process tier in front of Redis (a redis-server started for the run, so keys and memory are
// ours alone). Ops/s are medians of three rounds with the peer order rotated. Then the circuit
// breaker: getOrSet while that Redis is stopped, against the loader alone.
// Prints Markdown with the targets of issue 10, and the figures as a line `RESULT <json>`.
import { createKeyv } from '@keyv/redis'
import { createCache as createStowage, createMemoryStore, type Cache } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { startRedisServer } from '@stowage/redis-server'
import { BentoCache, bentostore } from 'bentocache'
import { memoryDriver } from 'bentocache/drivers/memory'
import { redisDriver } from 'bentocache/drivers/redis'
import { createCache as createCacheManager } from 'cache-manager'
import { Cacheable } from 'cacheable'
import { Redis } from 'ioredis'
import { Keyv } from 'keyv'
import { medianMsAsync } from './measure.js'
import { webhookPayloads } from './real-data.js'
import { w1 } from './workloads.js'

interface Facade {
  readonly name: string
  get(key: string): Promise<unknown>
  set(key: string, value: unknown): Promise<unknown>
  getOrSet(key: string, load: () => Promise<unknown>): Promise<unknown>
  close(): Promise<void>
}

export interface CacheBenchResult {
  /** ops/s by setup, value, operation, façade. */
  readonly ops: Record<string, Record<string, Record<string, Record<string, number>>>>
  /** Redis MEMORY USAGE of the 1 kB object, by façade. */
  readonly redisMemory: Record<string, number>
  readonly breaker: { readonly p99Ms: number; readonly loaderP99Ms: number }
}

const TTL = 60_000
const STOWAGE = 'Stowage'

function stowage(cache: Cache): Facade {
  return {
    name: STOWAGE,
    get: (key) => cache.get(key),
    set: (key, value) => cache.set(key, value, { ttl: TTL }),
    getOrSet: (key, load) => cache.getOrSet(key, load, { ttl: TTL }),
    close: () => cache.close(),
  }
}

function bento(name: string, bc: BentoCache<{ c: ReturnType<typeof bentostore> }>): Facade {
  return {
    name,
    get: (key) => bc.get({ key }),
    set: (key, value) => bc.set({ key, value, ttl: TTL }),
    getOrSet: (key, load) => bc.getOrSet({ key, factory: load, ttl: TTL }),
    close: () => bc.disconnectAll(),
  }
}

function cacheManager(cm: ReturnType<typeof createCacheManager>): Facade {
  return {
    name: 'cache-manager 7',
    get: (key) => cm.get(key),
    set: (key, value) => cm.set(key, value, TTL),
    getOrSet: (key, load) => cm.wrap(key, load, TTL),
    close: () => cm.disconnect().then(() => undefined),
  }
}

function cacheable(c: Cacheable): Facade {
  return {
    name: 'cacheable 2',
    get: (key) => c.get(key),
    set: (key, value) => c.set(key, value, TTL),
    getOrSet: (key, load) => c.getOrSet(key, load, { ttl: TTL }),
    close: () => c.disconnect(),
  }
}

function memoryFacades(): Facade[] {
  return [
    stowage(createStowage({ store: createMemoryStore(), local: true, namespace: 'bench' })),
    bento('bentocache 1.6', new BentoCache({ default: 'c', stores: { c: bentostore().useL1Layer(memoryDriver({ maxItems: 10_000 })) } })),
    bento('bentocache, serialize: false', new BentoCache({ default: 'c', stores: { c: bentostore().useL1Layer(memoryDriver({ maxItems: 10_000, serialize: false })) } })),
    cacheManager(createCacheManager()),
    cacheable(new Cacheable()),
  ]
}

function redisFacades(url: string, client: Redis): Facade[] {
  return [
    stowage(createStowage({ store: createRedisStore({ client }), namespace: 'stowage' })),
    bento('bentocache 1.6', new BentoCache({ default: 'c', stores: { c: bentostore().useL1Layer(memoryDriver({ maxItems: 10_000 })).useL2Layer(redisDriver({ connection: client, prefix: 'bento' })) } })),
    bento(
      'bentocache, serialize: false',
      new BentoCache({ default: 'c', stores: { c: bentostore().useL1Layer(memoryDriver({ maxItems: 10_000, serialize: false })).useL2Layer(redisDriver({ connection: client, prefix: 'bentoraw' })) } }),
    ),
    cacheManager(createCacheManager({ stores: [new Keyv(), createKeyv(url, { namespace: 'cm' })] })),
    cacheable(new Cacheable({ secondary: createKeyv(url, { namespace: 'cacheable' }) })),
  ]
}

// The 1 kB value: the real webhook payload whose JSON is closest to 1,000 bytes.
const hooks = webhookPayloads()
const kb = hooks.reduce((best, h) => (Math.abs(JSON.stringify(h).length - 1000) < Math.abs(JSON.stringify(best).length - 1000) ? h : best))
const values: Array<[string, () => unknown]> = [
  [`1 kB object (a webhook payload, ${JSON.stringify(kb).length} B of JSON)`, () => structuredClone(kb)],
  ['W1-1000', () => w1(1000)],
]

async function measure(facades: Facade[], setup: string, out: CacheBenchResult['ops']): Promise<void> {
  for (const [label, make] of values) {
    const runs: Record<string, Record<string, number[]>> = {}
    for (let round = 0; round < 3; round++) {
      const order = facades.map((_, i) => facades[(i + round) % facades.length] as Facade)
      for (const f of order) {
        const value = make()
        await f.set('hot', value)
        const cell = (runs[f.name] ??= {})
        const opsPerSec = (ms: number) => 1000 / ms
        ;(cell.get ??= []).push(opsPerSec(await medianMsAsync(() => f.get('hot'), 250)))
        ;(cell.getOrSet ??= []).push(opsPerSec(await medianMsAsync(() => f.getOrSet('hot', async () => value), 250)))
        let n = 0
        ;(cell.set ??= []).push(opsPerSec(await medianMsAsync(() => f.set(`k${n++ % 64}`, value), 250)))
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] as number
    const table = ((out[setup] ??= {})[label] = {} as Record<string, Record<string, number>>)
    for (const op of ['get', 'getOrSet', 'set']) {
      table[op] = Object.fromEntries(facades.map((f) => [f.name, median((runs[f.name] as Record<string, number[]>)[op] as number[])]))
    }
  }
}

const result: { -readonly [K in keyof CacheBenchResult]: CacheBenchResult[K] } = { ops: {}, redisMemory: {}, breaker: { p99Ms: 0, loaderP99Ms: 0 } }
const memory = memoryFacades()
await measure(memory, 'in-process tier', result.ops)
for (const f of memory) await f.close()

const server = await startRedisServer()
const client = new Redis(server.url)
const remote = redisFacades(server.url, client)
await measure(remote, 'in-process tier + Redis', result.ops)
// Redis memory of the 1 kB object, each façade alone in the server.
for (const f of remote) {
  await client.flushall() // our own server, started for this run
  await f.set('mem', structuredClone(kb))
  await new Promise((r) => setTimeout(r, 50))
  let bytes = 0
  for (const key of await client.keys('*')) bytes += (await client.memory('USAGE', key)) ?? 0
  result.redisMemory[f.name] = bytes
}
for (const f of remote) await f.close().catch(() => {})
await client.quit()

// The breaker: Redis stopped; each getOrSet of a cold key against the loader alone (5 ms of work).
const breakerStore = createRedisStore({ url: server.url, commandTimeout: 500 })
const breakerCache = createStowage({ store: breakerStore, namespace: 'breaker', local: false })
await server.stop()
const loader = async () => {
  await new Promise((r) => setTimeout(r, 5))
  return structuredClone(kb)
}
for (let i = 0; i < 10; i++) await breakerCache.getOrSet(`warm${i}`, loader) // opens the circuit
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1] as number
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now()
  await work()
  return performance.now() - started
}
const withCache: number[] = []
const alone: number[] = []
for (let i = 0; i < 200; i++) {
  withCache.push(await timed(() => breakerCache.getOrSet(`cold${i}`, loader)))
  alone.push(await timed(loader))
}
result.breaker = { p99Ms: p99(withCache), loaderP99Ms: p99(alone) }
await breakerStore.close()

const [kbLabel, w1Label] = values.map(([label]) => label) as [string, string]
const ops = (setup: string, label: string, op: string) => result.ops[setup]?.[label]?.[op] as Record<string, number>
const ratioToFastest = (cells: Record<string, number>) => (cells[STOWAGE] as number) / Math.max(...Object.entries(cells).filter(([n]) => n !== STOWAGE).map(([, v]) => v))
const targets: Array<[string, string, boolean]> = []
for (const [setup, short] of [
  ['in-process tier', 'in-process'],
  ['in-process tier + Redis', 'in-process + Redis'],
] as const) {
  for (const [label, name] of [
    [kbLabel, '1 kB object'],
    [w1Label, 'W1-1000'],
  ] as const) {
    for (const op of ['get', 'getOrSet']) {
      const r = ratioToFastest(ops(setup, label, op))
      targets.push([`${short} ${op} hit, ${name}: ≥ 1.0× the fastest peer`, `${r.toFixed(2)}×`, r >= 1])
    }
  }
}
const bentoSet = (label: string) => {
  const cells = ops('in-process tier + Redis', label, 'set')
  return (cells[STOWAGE] as number) / (cells['bentocache 1.6'] as number)
}
targets.push(['in-process + Redis set, 1 kB object: ≥ 1.0× bentocache', `${bentoSet(kbLabel).toFixed(2)}×`, bentoSet(kbLabel) >= 1])
targets.push(['in-process + Redis set, W1-1000: ≥ 2.0× bentocache', `${bentoSet(w1Label).toFixed(2)}×`, bentoSet(w1Label) >= 2])
const memoryRatio = (result.redisMemory[STOWAGE] as number) / Math.min(...Object.entries(result.redisMemory).filter(([n]) => n !== STOWAGE).map(([, v]) => v))
targets.push(['Redis memory of the 1 kB object ≤ 0.7× the peers’', `${memoryRatio.toFixed(2)}× (${result.redisMemory[STOWAGE]} B)`, memoryRatio <= 0.7])
const breakerRatio = result.breaker.p99Ms / result.breaker.loaderP99Ms
targets.push(['Redis stopped, breaker open: getOrSet p99 ≤ 2× the loader’s', `${breakerRatio.toFixed(2)}× (${result.breaker.p99Ms.toFixed(2)} vs ${result.breaker.loaderP99Ms.toFixed(2)} ms)`, breakerRatio <= 2])

const fmt = (n: number) => (n >= 100_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0))
const lines: string[] = ['| target | measured | |', '|---|---|---|', ...targets.map(([name, measured, ok]) => `| ${name} | ${measured} | ${ok ? 'met' : '**missed**'} |`), '']
for (const [setup, byValue] of Object.entries(result.ops)) {
  for (const [label, byOp] of Object.entries(byValue)) {
    const names = Object.keys(byOp.get as Record<string, number>)
    lines.push(`### ${setup}: ${label}`, '', `| operation | ${names.join(' | ')} | Stowage ÷ fastest peer |`, `|---|${names.map(() => '---|').join('')}---|`)
    for (const [op, cells] of Object.entries(byOp)) {
      const peers = names.filter((n) => n !== STOWAGE).map((n) => cells[n] as number)
      lines.push(`| ${op} | ${names.map((n) => fmt(cells[n] as number)).join(' | ')} | ${((cells[STOWAGE] as number) / Math.max(...peers)).toFixed(2)} |`)
    }
    lines.push('')
  }
}
lines.push('Redis memory of the 1 kB object (MEMORY USAGE of every key the façade wrote):', '', '| façade | bytes |', '|---|---|')
for (const [name, bytes] of Object.entries(result.redisMemory)) lines.push(`| ${name} | ${bytes} |`)
lines.push('', `Circuit breaker, Redis stopped: getOrSet of a cold key p99 ${result.breaker.p99Ms.toFixed(2)} ms, the loader alone p99 ${result.breaker.loaderP99Ms.toFixed(2)} ms (${(result.breaker.p99Ms / result.breaker.loaderP99Ms).toFixed(2)}×).`)
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify({ ...result, targets })}`)
