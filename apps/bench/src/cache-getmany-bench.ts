// Cache.getMany with the in-process tier on (the default over Redis), on a redis-server of its own:
// the keys the tier lacks read in one pipeline (Store.getManyWithTtl: MGET and a PTTL a key) against
// a GET + PTTL pipeline a key, as before 2026-11-29 (the same store with getManyWithTtl hidden).
// A new Cache per sample, so every key is read from Redis. Prints Markdown and a RESULT line.
import { createCache, type Store } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { startRedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { webhookPayloads } from './real-data.js'

const ROUNDS = 61
const server = await startRedisServer()
const client = new Redis(server.url)
const store = createRedisStore({ client })
// The same store, seen by a Cache as one without getManyWithTtl.
const keyByKey: Store = { name: store.name, get: (k) => store.get(k), getWithTtl: (k) => store.getWithTtl(k), getMany: (k) => store.getMany(k), set: (k, v, o) => store.set(k, v, o), delete: (k) => store.delete(k), clear: (p) => store.clear(p) }
const sets: Array<[string, unknown[]]> = [
  ['100 small objects (~70 B of JSON each, synthetic)', Array.from({ length: 100 }, (_, i) => ({ id: i, name: `user ${i}`, email: `u${i}@example.com`, admin: i % 7 === 0 }))],
  ['100 GitHub webhook payloads (real data, 0.9–27 kB)', webhookPayloads().slice(0, 100)],
]
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const rows: Array<{ name: string; batchMs: number; keyByKeyMs: number }> = []
try {
  for (const [name, values] of sets) {
    const namespace = `getmany-${rows.length}`
    await createCache({ store, namespace, local: false }).setMany(values.map((value, i) => ({ key: `k${i}`, value })))
    const keys = values.map((_, i) => `k${i}`)
    const samples: Record<'batch' | 'keyByKey', number[]> = { batch: [], keyByKey: [] }
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of r % 2 ? (['batch', 'keyByKey'] as const) : (['keyByKey', 'batch'] as const)) {
        const cache = createCache({ store: mode === 'batch' ? store : keyByKey, namespace })
        const t = performance.now()
        const got = await cache.getMany(keys)
        samples[mode].push(performance.now() - t)
        if (got.some((v) => v === undefined)) throw new Error('a value is missing')
      }
    }
    rows.push({ name, batchMs: median(samples.batch), keyByKeyMs: median(samples.keyByKey) })
  }
} finally {
  await client.quit()
  await server.stop()
}
console.log([
  `Node ${process.version}, ioredis, a redis-server of the bench's own on loopback; \`cache.getMany\` of 100 keys with the in-process tier on, a new Cache each sample (every key read from Redis); medians of ${ROUNDS} samples, the two ways taking turns.`,
  '',
  '| values | one pipeline (getManyWithTtl) ms | a GET + PTTL pipeline a key ms | ratio |',
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.batchMs.toFixed(2)} | ${r.keyByKeyMs.toFixed(2)} | ${(r.batchMs / r.keyByKeyMs).toFixed(2)}× |`),
].join('\n'))
console.log(`RESULT ${JSON.stringify(rows)}`)
