import { createCache, StowageErrorCode } from '@stowage/core'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { createRedisStore } from '../src/index.js'

// The keys that hold tags' generations (`namespace:#tag:<tag>`), as Redis keeps them.
const url = inject('redisUrl')
let raw: Redis
beforeAll(() => {
  raw = new Redis(url)
})
afterAll(async () => {
  await raw.quit()
})

const namespace = () => `tags-${Math.random().toString(36).slice(2)}`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('tag generation keys in Redis', () => {
  it('live as long as the longest-lived entry written with the tag: raised by each write, never lowered', async () => {
    const ns = namespace()
    const cache = createCache({ store: createRedisStore({ client: raw }), namespace: ns, local: false })
    await cache.set('a', 1, { tags: ['t'], ttl: 60_000 })
    const first = await raw.pttl(`${ns}:#tag:t`)
    expect(first).toBeGreaterThan(59_000)
    expect(first).toBeLessThanOrEqual(60_000)
    await cache.set('b', 2, { tags: ['t'], ttl: 120_000 })
    expect(await raw.pttl(`${ns}:#tag:t`)).toBeGreaterThan(119_000)
    await cache.set('c', 3, { tags: ['t'], ttl: 1_000 })
    expect(await raw.pttl(`${ns}:#tag:t`)).toBeGreaterThan(119_000)
    // The stale and grace windows keep an entry in the store past its ttl: the tag lives as long.
    await cache.getOrSet('d', () => 4, { tags: ['s'], ttl: 1_000, staleFor: 200_000, grace: 100_000 })
    expect(await raw.pttl(`${ns}:#tag:s`)).toBeGreaterThan(300_000)
    await cache.setMany([{ key: 'e', value: 5, tags: ['m'], ttl: 30_000 }, { key: 'f', value: 6, tags: ['m'], ttl: 90_000 }])
    expect(await raw.pttl(`${ns}:#tag:m`)).toBeGreaterThan(89_000)
    expect(await cache.getMany(['a', 'b', 'c', 'd', 'e', 'f'])).toStrictEqual([1, 2, 3, 4, 5, 6])
    await cache.clear()
  })

  it('are persistent once an entry without TTL carries the tag', async () => {
    const ns = namespace()
    const cache = createCache({ store: createRedisStore({ client: raw }), namespace: ns, local: false })
    await cache.set('a', 1, { tags: ['t'], ttl: 60_000 })
    await cache.set('b', 2, { tags: ['t'] })
    expect(await raw.pttl(`${ns}:#tag:t`)).toBe(-1)
    await cache.set('c', 3, { tags: ['t'], ttl: 1_000 })
    expect(await raw.pttl(`${ns}:#tag:t`)).toBe(-1)
    await cache.clear()
  })

  it('go away with their entries, so tags of expired entries do not pile up', async () => {
    const ns = namespace()
    const cache = createCache({ store: createRedisStore({ client: raw }), namespace: ns, local: false })
    // A TTL long enough for 20 writes on a loaded machine (150 ms was not: CI's neighbours), and a
    // wait for the keys to go rather than a fixed sleep.
    for (let i = 0; i < 20; i++) await cache.set(`user:${i}`, { i }, { tags: [`user:${i}`], ttl: 1_500 })
    expect(await raw.keys(`${ns}:#tag:*`)).toHaveLength(20)
    await vi.waitFor(async () => expect(await raw.keys(`${ns}:*`)).toStrictEqual([]), { timeout: 6_000, interval: 100 })
  })

  it('deleteByTag leaves no key behind; entries of the deleted tag read as misses, later writes are current', async () => {
    const ns = namespace()
    const cache = createCache({ store: createRedisStore({ client: raw }), namespace: ns, local: false })
    const other = createCache({ store: createRedisStore({ client: raw }), namespace: ns, local: false })
    await cache.set('a', 1, { tags: ['t'] })
    await cache.set('b', 2, { tags: ['t', 'u'], ttl: 60_000 })
    await cache.deleteByTag('t')
    expect(await raw.exists(`${ns}:#tag:t`)).toBe(0)
    expect(await other.getMany(['a', 'b'])).toStrictEqual([undefined, undefined])
    await other.set('a', 10, { tags: ['t'], ttl: 60_000 })
    expect(await cache.get('a')).toBe(10)
    expect(await raw.pttl(`${ns}:#tag:t`)).toBeGreaterThan(59_000)
    await cache.clear()
  })
})

describe('ensureMany of the Redis store', () => {
  it('refuses a value it would store as chunks, and returns a chunked value found under a key with its TTL as it was', async () => {
    const store = createRedisStore({ client: raw, chunkSize: 1024 })
    const key = `${namespace()}:big`
    await expect(store.ensureMany([{ key, value: new Uint8Array(2000) }])).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    const big = new Uint8Array(3000).map((_, i) => i & 0xff)
    await store.set(key, big, { ttl: 60_000 })
    expect(await store.ensureMany([{ key, value: new Uint8Array([1]) }])).toStrictEqual([big])
    expect(await raw.pttl(key)).toBeLessThanOrEqual(60_000)
    expect(await store.get(key)).toStrictEqual(big)
    await store.delete(key)
  })
})
