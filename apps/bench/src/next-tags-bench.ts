// Tag revalidation of @stowage/next's `cacheHandler` at 1,000, 10,000 and 100,000 cached keys
// (issue 26: "revalidateTag at 10,000 and 100,000 cached keys in constant time"). Two handler
// instances (two caches, as two `next start` processes) over one redis-server of the run's own:
// instance A caches N fetch-cache entries, each tagged with the shared tag `products` and a tag
// of its own; then `revalidateTag('products')` on A is timed, and instance B must miss every
// entry it is then asked for (a sample of 200). The peers revalidate by listing the tag's keys
// (a Redis set or hash per tag), so their cost grows with N; Stowage's tag generations do not.
// Prints Markdown and a RESULT line.
import { createCacheHandler, type StowageCacheHandler } from '@stowage/next'
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { startRedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'

const SIZES = (process.env.NEXT_TAGS_SIZES ?? '1000,10000,100000').split(',').map(Number)
const ROUNDS = 7
const server = await startRedisServer()
const raw = new Redis(server.url)
const store = createRedisStore({ client: raw })
// Two instances of one app (two caches over one store and namespace), and a way to remove what they cached.
function twoInstances(store: RedisStore): [StowageCacheHandler, StowageCacheHandler, () => Promise<void>] {
  const namespace = `next-tags-${Math.random().toString(36).slice(2)}`
  const A = createCacheHandler({ store, namespace })
  const B = createCacheHandler({ store, namespace })
  return [new A({ revalidatedTags: [] }), new B({ revalidatedTags: [] }), () => store.clear(namespace)]
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

const entry = (i: number) => ({ kind: 'FETCH', data: { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: i, price: i % 100, name: `product ${i}` }), url: `https://api.example/products/${i}`, status: 200 }, tags: ['products', `product-${i}`], revalidate: 3600 })

interface Row {
  readonly keys: number
  readonly revalidateMs: number
  readonly missesAfter: number
  readonly sampled: number
  readonly fillS: number
}

const rows: Row[] = []
try {
  for (const n of SIZES) {
    const [a, b, clear] = twoInstances(store)
    const started = performance.now()
    for (let i = 0; i < n; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, n - i) }, (_, k) => a.set(`fetch-${i + k}`, entry(i + k), { fetchCache: true, tags: ['products', `product-${i + k}`] })))
    }
    const fillS = (performance.now() - started) / 1000
    const sample = Array.from({ length: 200 }, (_, k) => Math.floor((k * n) / 200))
    for (const i of sample) if ((await b.get(`fetch-${i}`, { kind: 'FETCH', tags: ['products', `product-${i}`], softTags: [] })) === null) throw new Error(`instance B missed fetch-${i} before any revalidation`)
    const times: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now()
      await a.revalidateTag('products')
      times.push(performance.now() - t)
    }
    let missesAfter = 0
    for (const i of sample) if ((await b.get(`fetch-${i}`, { kind: 'FETCH', tags: ['products', `product-${i}`], softTags: [] })) === null) missesAfter++
    rows.push({ keys: n, revalidateMs: median(times), missesAfter, sampled: sample.length, fillS })
    process.stderr.write(`next-tags-bench: ${n} keys: revalidateTag ${median(times).toFixed(2)} ms\n`)
    await clear()
  }
} finally {
  await raw.quit()
  await server.stop()
}

const first = rows[0]!
const last = rows.at(-1)!
console.log(`@stowage/next \`cacheHandler\`, two instances over one redis-server of the run's own (loopback): instance A caches N fetch-cache entries tagged \`products\` and a tag of their own, then \`revalidateTag('products')\` on A is timed (median of ${ROUNDS}); instance B is then asked for 200 of the entries.`)
console.log('')
console.log('| cached keys | revalidateTag (median) | B misses after it (of 200 asked) | time to cache the N entries |')
console.log('|---|---|---|---|')
for (const r of rows) console.log(`| ${r.keys.toLocaleString('en')} | ${r.revalidateMs.toFixed(2)} ms | ${r.missesAfter} | ${r.fillS.toFixed(1)} s |`)
console.log('')
const ratio = last.revalidateMs / first.revalidateMs
const ok = ratio <= 2 && rows.every((r) => r.missesAfter === r.sampled)
console.log(`Issue 26's target, revalidateTag in constant time from ${first.keys.toLocaleString('en')} to ${last.keys.toLocaleString('en')} keys: ${ratio.toFixed(2)}× (${ok ? 'met' : '**missed**'}; a constant cost within this machine's noise is ≤ 2×, and every entry asked after it is a miss).`)
console.log(`RESULT ${JSON.stringify([[`Next.js cacheHandler: revalidateTag at ${last.keys.toLocaleString('en')} keys ≤ 2× its time at ${first.keys.toLocaleString('en')} (constant), every tagged entry a miss after it`, ratio, ok]])}`)
