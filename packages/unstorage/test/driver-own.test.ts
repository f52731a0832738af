import { createMemoryStore, StowageErrorCode } from '@stowage/core'
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { Redis } from 'ioredis'
import { createStorage } from 'unstorage'
import redisDriver from 'unstorage/drivers/redis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { stowageDriver } from '../src/index.js'

const base = () => `unstorage-own-${Math.random().toString(36).slice(2)}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let raw: Redis
let redis: RedisStore
beforeAll(() => {
  raw = new Redis(inject('redisUrl'))
  redis = createRedisStore({ client: raw })
})
afterAll(async () => {
  await redis.clear('unstorage-own-')
  await raw.quit()
})

describe('TTL', () => {
  it('gives an item the TTL setItem asks for, in seconds, in Redis (PX)', async () => {
    const b = base()
    const storage = createStorage({ driver: stowageDriver({ store: redis, base: b }) })
    await storage.setItem('short', 'x', { ttl: 30 })
    await storage.setItemRaw('raw', new Uint8Array([1]), { ttl: 0.5 })
    await storage.setItem('forever', 'x')
    const short = await raw.pttl(`${b}:short`)
    expect(short).toBeGreaterThan(29_000)
    expect(short).toBeLessThanOrEqual(30_000)
    expect(await raw.pttl(`${b}:forever`)).toBe(-1)
    await sleep(600)
    expect(await storage.hasItem('raw')).toBe(false)
  })

  it('gives every item written without a TTL the ttl option’s', async () => {
    const b = base()
    const storage = createStorage({ driver: stowageDriver({ store: redis, base: b, ttl: 120 }) })
    await storage.setItem('a', { n: 1 })
    await storage.setItems([{ key: 'b', value: 2 }, { key: 'c', value: 3, options: { ttl: 10 } }])
    await storage.setMeta('a', { note: 'meta' })
    for (const key of ['a', 'b', 'a$']) {
      const ttl = await raw.pttl(`${b}:${key}`)
      expect(ttl, key).toBeGreaterThan(119_000)
      expect(ttl, key).toBeLessThanOrEqual(120_000)
    }
    expect(await raw.pttl(`${b}:c`)).toBeLessThanOrEqual(10_000)
  })

  it('reports the seconds left in getMeta, none for an item that does not expire', async () => {
    const storage = createStorage({ driver: stowageDriver({ store: redis, base: base() }) })
    await storage.setItem('expiring', 'x', { ttl: 100 })
    await storage.setItem('lasting', 'x')
    const meta = await storage.getMeta('expiring')
    expect(meta.ttl).toBeGreaterThan(98)
    expect(meta.ttl).toBeLessThanOrEqual(100)
    expect((await storage.getMeta('lasting')).ttl).toBeUndefined()
  })
})

describe('what Redis holds', () => {
  it('keeps raw bytes as bytes inside the envelope, where unstorage’s own Redis driver keeps base64 text', async () => {
    const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7919) % 251)
    const ours = base()
    const theirs = base()
    await createStorage({ driver: stowageDriver({ store: redis, base: ours }) }).setItemRaw('blob', bytes)
    const peer = createStorage({ driver: redisDriver({ url: inject('redisUrl'), base: theirs }) })
    await peer.setItemRaw('blob', bytes)
    await peer.dispose()
    const ourBytes = (await raw.getBuffer(`${ours}:blob`)) as Buffer
    const theirText = (await raw.get(`${theirs}:blob`)) as string
    expect(ourBytes[0]).toBe(0xc1)
    expect(theirText.startsWith('base64:')).toBe(true)
    expect(ourBytes.byteLength).toBeLessThan(bytes.byteLength + 32)
    expect(theirText.length).toBeGreaterThan(bytes.byteLength * 1.33)
    await raw.unlink(`${theirs}:blob`)
  })

  it('keeps text as text: what setItem got is what getItem gives unstorage to parse', async () => {
    const storage = createStorage({ driver: stowageDriver({ store: createMemoryStore() }) })
    for (const value of ['true', '0', '{"a":1}', 'plain', '']) {
      await storage.setItem('k', value)
      expect(await storage.getItem('k')).toEqual(value === 'true' ? true : value === '0' ? 0 : value === '{"a":1}' ? { a: 1 } : value)
      expect(await storage.getItemRaw('k')).toBe(value)
    }
  })
})

describe('errors', () => {
  it('refuses a missing store and a bad ttl option with INVALID_ARGUMENT', () => {
    expect(() => stowageDriver({} as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
    expect(() => stowageDriver({ store: createMemoryStore(), ttl: -1 })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
  })

  it('rejects a bad TTL on a write, and a store failure as STORE_ERROR', async () => {
    const store = createMemoryStore()
    const storage = createStorage({ driver: stowageDriver({ store }) })
    await expect(storage.setItem('k', 'x', { ttl: 'soon' })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    await store.close()
    await expect(storage.setItem('k', 'x')).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })

  it('leaves the store open when unstorage disposes of the driver: the store is yours', async () => {
    const store = createMemoryStore()
    const storage = createStorage({ driver: stowageDriver({ store }) })
    await storage.setItem('k', 'x')
    await storage.dispose()
    expect(await store.get('k')).toBeInstanceOf(Uint8Array)
  })
})
