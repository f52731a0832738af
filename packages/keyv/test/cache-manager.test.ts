// cache-manager 7's README examples and cacheable 2's two-layer example, with the Redis layer
// swapped for this adapter over @stowage/redis, against a real Redis.
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { createCache } from 'cache-manager'
import { Cacheable, CacheableMemory } from 'cacheable'
import { Redis } from 'ioredis'
import { Keyv } from 'keyv'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createKeyv, createKeyvStore } from '../src/index.js'

const prefix = () => `keyv-cm-${Math.random().toString(36).slice(2)}:`

let raw: Redis
let store: RedisStore
beforeAll(() => {
  raw = new Redis(inject('redisUrl'))
  store = createRedisStore({ client: raw })
})
afterAll(async () => {
  await raw.quit()
})

describe('cache-manager 7', () => {
  it('runs the README quick start (set, get, del, wrap) on this store', async () => {
    const p = prefix()
    // The README's `createCache({ ttl: 10000, refreshThreshold: 3000 })`, on this store.
    const cache = createCache({ stores: [createKeyv(store, { prefix: p })], ttl: 10000, refreshThreshold: 3000 })
    expect(await cache.set('foo', 'bar')).toBe('bar')
    expect(await cache.get('foo')).toBe('bar')
    expect(await cache.del('foo')).toBe(true)
    expect(await cache.get('foo')).toBeUndefined()
    expect(await cache.wrap('key', () => 'value')).toBe('value')
    // The entry is in Redis, as an envelope, with the cache's TTL.
    const ttl = await raw.pttl(`${p}keyv:key`)
    expect(ttl).toBeGreaterThan(9_000)
    expect(ttl).toBeLessThanOrEqual(10_000)
    expect(((await raw.getBuffer(`${p}keyv:key`)) as Buffer)[0]).toBe(0xc1)
    await store.clear(p)
  })

  it('runs the README two-layer example: CacheableMemory in front, this store (in place of @keyv/redis) behind', async () => {
    const p = prefix()
    const cache = createCache({
      stores: [new Keyv({ store: new CacheableMemory({ ttl: 60000, lruSize: 5000 }) }), new Keyv({ store: createKeyvStore(store, { prefix: p }) })],
    })
    await cache.set('user:1', { id: 1, name: 'Ada' }, 30_000)
    expect(await cache.get('user:1')).toEqual({ id: 1, name: 'Ada' })
    // A second process has only the Redis layer: it reads what the first wrote.
    const other = createCache({ stores: [new Keyv({ store: createKeyvStore(store, { prefix: p }) })] })
    expect(await other.get('user:1')).toEqual({ id: 1, name: 'Ada' })
    const expires = await other.ttl('user:1')
    expect(expires).toBeGreaterThan(Date.now() + 25_000)
    await cache.mset([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ])
    expect(await other.mget(['a', 'b', 'c'])).toEqual([1, 2, undefined])
    expect(await cache.mdel(['a', 'b'])).toBe(true)
    expect(await other.get('a')).toBeUndefined()
    await cache.clear()
    expect(await other.get('user:1')).toBeUndefined()
    await store.clear(p)
  })

  it('wraps with refreshThreshold: a value near its end is refreshed in the background, with its new TTL in Redis', async () => {
    const p = prefix()
    const cache = createCache({ stores: [createKeyv(store, { prefix: p })] })
    let calls = 0
    const load = async () => ++calls
    expect(await cache.wrap('n', load, 1_000, 900)).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    // 800 ms left, under the 900 ms threshold: the old value answers and a refresh runs.
    expect(await cache.wrap('n', load, 1_000, 900)).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(calls).toBe(2)
    expect(await cache.get('n')).toBe(2)
    expect(await raw.pttl(`${p}keyv:n`)).toBeGreaterThan(800)
    await store.clear(p)
  })
})

describe('cacheable 2', () => {
  it('keeps its secondary layer in this store: a second instance reads the first one’s values', async () => {
    const p = prefix()
    const first = new Cacheable({ secondary: createKeyv(store, { prefix: p }), ttl: '1m' })
    const second = new Cacheable({ secondary: createKeyv(store, { prefix: p }) })
    await first.set('post:1', { title: 'Hello', at: new Date(0) })
    expect(await second.get('post:1')).toEqual({ title: 'Hello', at: new Date(0) })
    expect(await second.getOrSet('post:2', async () => ({ title: 'Loaded' }))).toEqual({ title: 'Loaded' })
    expect(await first.get('post:2')).toEqual({ title: 'Loaded' })
    const ttl = await raw.pttl(`${p}keyv:post:1`)
    expect(ttl).toBeGreaterThan(50_000)
    expect(ttl).toBeLessThanOrEqual(60_000)
    await store.clear(p)
  })
})
