import { createCache, StowageErrorCode } from '@stowage/core'
import { describeStoreContract } from '@stowage/store-contract'
import { Redis } from 'ioredis'
import { Redis as Redis5 } from 'ioredis5'
import { createClient } from 'redis'
import { createClient as createClient6 } from 'redis6'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { chunkNamer, isChunkName } from '../src/chunk-names.js'
import { MANIFEST_MAGIC, readManifest, writeManifest } from '../src/chunks.js'
import { keySlot } from '../src/key-slot.js'
import { startRedisServer } from '@stowage/redis-server'
import { createRedisLease, createRedisStore } from '../src/index.js'

const url = inject('redisUrl')
const prefix = () => `stowage-test:${Math.random().toString(36).slice(2)}:`

// A client the tests own for raw looks at what Redis holds.
let raw: Redis
let ioredis5: Redis5
let nodeRedis: ReturnType<typeof createClient>
let nodeRedis6: ReturnType<typeof createClient6>
beforeAll(async () => {
  raw = new Redis(url)
  ioredis5 = new Redis5(url)
  nodeRedis = createClient({ url })
  await nodeRedis.connect()
  nodeRedis6 = createClient6({ url })
  await nodeRedis6.connect()
})
afterAll(async () => {
  await raw.quit()
  await ioredis5.quit()
  await nodeRedis.close()
  await nodeRedis6.close()
})

describeStoreContract({ name: 'redis (ioredis 6, own connection from a url)', createStore: () => createRedisStore({ url }) })
describeStoreContract({ name: 'redis (an ioredis 5 client)', createStore: () => createRedisStore({ client: ioredis5 }) })
describeStoreContract({ name: 'redis (a node-redis 5 client)', createStore: () => createRedisStore({ client: nodeRedis }) })
describeStoreContract({ name: 'redis (a node-redis 6 client, RESP3)', createStore: () => createRedisStore({ client: nodeRedis6 }) })

describe('redis store', () => {
  it('sends bytes as bytes: a Uint8Array never becomes the text "1,2,255"', async () => {
    const key = `${prefix()}bytes`
    for (const client of [raw, ioredis5, nodeRedis, nodeRedis6] as const) {
      const store = createRedisStore({ client })
      await store.set(key, new Uint8Array([1, 2, 255]))
      expect([...((await raw.getBuffer(key)) as Buffer)]).toStrictEqual([1, 2, 255])
      await store.set(key, new Uint8Array([7, 7, 1, 2, 3, 7]).subarray(2, 5))
      expect([...((await raw.getBuffer(key)) as Buffer)]).toStrictEqual([1, 2, 3])
      await store.close()
    }
    await raw.del(key)
  })

  it('sets the TTL with PX', async () => {
    const store = createRedisStore({ client: raw })
    const key = `${prefix()}ttl`
    await store.set(key, new Uint8Array([1]), { ttl: 5000 })
    const pttl = await raw.pttl(key)
    expect(pttl).toBeGreaterThan(4000)
    expect(pttl).toBeLessThanOrEqual(5000)
    await store.delete(key)
  })

  it('leaves a client it was given open, closes one it made', async () => {
    const given = createRedisStore({ client: raw })
    await given.close()
    expect(await raw.ping()).toBe('PONG')
    const owned = createRedisStore({ url })
    await owned.set(`${prefix()}x`, new Uint8Array([1]))
    await owned.close()
    await expect(owned.get('x')).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })

  it('refuses bad options', () => {
    for (const options of [{}, { url, client: raw }, { client: {} }, { url, chunkSize: 10 }, { url, commandTimeout: 0 }]) {
      expect(() => createRedisStore(options)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
    }
    // A misspelt option is refused, not ignored with its default used.
    expect(() => createRedisStore({ client: raw, comandTimeout: 50 } as never)).toThrow('unknown createRedisStore option "comandTimeout" (did you mean commandTimeout?)')
    expect(() => createRedisLease({ client: raw, timout: 50 } as never)).toThrow('unknown createRedisLease option "timout" (did you mean timeout?)')
  })

  it('works under a Cache: compact envelopes in Redis', async () => {
    const store = createRedisStore({ client: raw })
    const namespace = `stowage-test-${Math.random().toString(36).slice(2)}`
    const cache = createCache({ store, namespace })
    const rows = Array.from({ length: 1000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
    await cache.set('rows', rows)
    expect(await cache.get('rows')).toStrictEqual(rows)
    const stored = (await raw.getBuffer(`${namespace}:rows`)) as Buffer
    expect(stored[0]).toBe(0xc1)
    expect(stored.length).toBeLessThan(JSON.stringify(rows).length * 0.01)
    await cache.clear()
    expect(await raw.exists(`${namespace}:rows`)).toBe(0)
  })
})

describe('redis store: huge values in chunks', () => {
  const chunkSize = 1024
  const value = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 31 + seed) & 0xff)
  const chunkKeysOf = async (key: string) => (await raw.keys(`${key}:#chunk:*`)).sort()

  it('splits a value above chunkSize into chunks and a manifest, and reads it back whole', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const key = `${prefix()}big`
    const big = value(10_000, 1)
    await store.set(key, big)
    const manifest = (await raw.getBuffer(key)) as Buffer
    expect([...manifest.subarray(0, 16)]).toStrictEqual([...MANIFEST_MAGIC])
    expect(await chunkKeysOf(key)).toHaveLength(10)
    expect(await store.get(key)).toStrictEqual(big)
    expect(await store.getMany([key, `${key}-missing`])).toStrictEqual([big, undefined])
  })

  const ttls = async (keys: string[]) => Promise.all(keys.map((k) => raw.pttl(k)))
  // The chunks of a replaced or deleted value expire within 30 s (readers of the old manifest finish first).
  const expiring = (pttls: number[]) => pttls.every((t) => t === -2 || (t > 0 && t <= 30_000))

  it('lets the old chunks expire when a chunked value is overwritten or deleted; live chunks of a value without TTL persist', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const key = `${prefix()}big`
    await store.set(key, value(5000, 1))
    const first = await chunkKeysOf(key)
    expect(await ttls(first)).toStrictEqual(first.map(() => -1))
    await store.set(key, value(3000, 2))
    const second = (await chunkKeysOf(key)).filter((k) => !first.includes(k))
    expect(second).toHaveLength(3)
    expect(await ttls(second)).toStrictEqual([-1, -1, -1])
    expect(expiring(await ttls(first))).toBe(true)
    await store.set(key, value(10, 3))
    expect(expiring(await ttls(second))).toBe(true)
    await store.set(key, value(5000, 4), { ttl: 60_000 })
    const third = (await chunkKeysOf(key)).filter((k) => !first.includes(k) && !second.includes(k))
    expect((await ttls(third)).every((t) => t > 60_000 && t <= 70_000)).toBe(true) // the value's TTL and a little more
    expect(await store.delete(key)).toBe(true)
    expect(expiring(await ttls(third))).toBe(true)
    expect(await raw.exists(key)).toBe(0)
    await raw.del(...(await chunkKeysOf(key)))
  })

  it('a write that fails midway leaves only chunks that expire on their own', async () => {
    // A user who may SET but not run scripts: the chunks land, the manifest (a script) is refused.
    const server = await startRedisServer()
    const admin = new Redis(server.url)
    await admin.acl('SETUSER', 'noscripts', 'on', 'nopass', '~*', '+@all', '-evalsha', '-eval')
    const limited = new Redis(server.url, { username: 'noscripts', password: 'x' })
    const store = createRedisStore({ client: limited, chunkSize })
    await expect(store.set('big', value(5000, 1))).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    const left = await admin.keys('*:#chunk:*')
    expect(left).toHaveLength(5)
    const pttls = await Promise.all(left.map((k) => admin.pttl(k)))
    expect(pttls.every((t) => t > 0 && t <= 3_600_000)).toBe(true)
    limited.disconnect()
    await admin.quit()
    await server.stop()
  })

  it('refuses a damaged manifest with CORRUPT, before asking for its chunks', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const key = `${prefix()}bad`
    const bomb = writeManifest({ generation: 'ab'.repeat(8), count: 2 ** 32 - 1, length: 2 ** 32 - 1, crc: 0 })
    const short = writeManifest({ generation: 'ab'.repeat(8), count: 3, length: 10, crc: 0 })
    const huge = writeManifest({ generation: 'ab'.repeat(8), count: 1, length: 2 ** 40, crc: 0 })
    for (const manifest of [bomb, short, huge, bomb.subarray(0, 30)]) {
      await raw.set(key, Buffer.from(manifest))
      await expect(store.get(key)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    }
    // Chunks that hold another length than announced: CORRUPT, not a RangeError.
    await store.set(key, value(3000, 1))
    const manifest = readManifest(new Uint8Array((await raw.getBuffer(key)) as Buffer))!
    await raw.set(key, Buffer.from(writeManifest({ ...manifest, length: 2500 })))
    await expect(store.get(key)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    await raw.set(key, Buffer.from(writeManifest({ ...manifest, length: 3500 })))
    await expect(store.get(key)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    await raw.del(key, ...(await chunkKeysOf(key)))
  })

  it('never sends the old value back when overwriting or deleting it', async () => {
    const server = await startRedisServer()
    const client = new Redis(server.url)
    const store = createRedisStore({ client })
    const sent = async () => Number(/total_net_output_bytes:(\d+)/.exec(await client.info('stats'))![1])
    const big = value(2_000_000, 1)
    await store.set('v', big)
    const before = await sent()
    await store.set('v', value(2_000_000, 2))
    await store.setMany([{ key: 'v', value: big }])
    expect(await store.delete('v')).toBe(true)
    expect((await sent()) - before).toBeLessThan(20_000) // replies and INFO, not 2 MB each time
    await client.quit()
    await server.stop()
  })

  it('keeps chunks out of keys() and removes them with clear()', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const p = prefix()
    await store.set(`${p}big`, value(5000, 1))
    await store.set(`${p}small`, value(10, 1))
    const keys: string[] = []
    for await (const k of store.keys(p)) keys.push(k)
    expect(keys.sort()).toStrictEqual([`${p}big`, `${p}small`])
    await store.clear(p)
    expect(expiring(await ttls(await chunkKeysOf(`${p}big`)))).toBe(true)
    await raw.del(...(await chunkKeysOf(`${p}big`)))
  })

  it('stores a value that looks like a manifest as chunks, so it reads back exactly', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const key = `${prefix()}lookalike`
    const lookalike = new Uint8Array([...MANIFEST_MAGIC, 1, 2, 3])
    await store.set(key, lookalike)
    expect(await store.get(key)).toStrictEqual(lookalike)
  })

  it('names chunks after their key, in the hash slot of their key, hash tags included', () => {
    const generation = '0011223344556677'
    expect(chunkNamer('user:{42}:avatar', generation)(1)).toBe('user:{42}:avatar:#chunk:0011223344556677:1')
    const name = chunkNamer('app:big', generation)(0)
    expect(name).toMatch(/^app:big:#chunk:0011223344556677:0:[@A-O]{4}$/)
    expect(keySlot(name)).toBe(keySlot('app:big'))
    expect([name, '{app:big}:chunk:0011223344556677:0'].map(isChunkName)).toStrictEqual([true, true])
    // Names of the form with another suffix, or none where one is due, are not the store's.
    expect([`${name.slice(0, -4)}@@@@`, name.slice(0, -5), 'app:big:#chunk:0011223344556677:01'].map(isChunkName)).toStrictEqual([false, false, false])
  })

  it('never lets a reader see a torn value, nor miss one, while two writers replace it', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const other = createRedisStore({ client: ioredis5, chunkSize })
    const key = `${prefix()}torn`
    const versions = [value(8000, 1), value(9000, 2), value(7000, 3)]
    await store.set(key, versions[0]!)
    let stop = false
    const writers = [store, other].map(async (writer, w) => {
      for (let i = 1 + w; !stop; i++) await writer.set(key, versions[i % 3]!)
    })
    // The reader has a connection of its own, so its reads interleave with both writers'.
    const reader = createRedisStore({ client: nodeRedis, chunkSize })
    const seen = new Set<number>()
    let misses = 0
    for (let r = 0; r < 300; r++) {
      const read = await reader.get(key)
      if (read === undefined) {
        misses++
        continue
      }
      const match = versions.findIndex((v) => v.length === read.length && v.every((b, i) => b === read[i]))
      expect(match).toBeGreaterThanOrEqual(0)
      seen.add(match)
    }
    stop = true
    await Promise.all(writers)
    expect(misses).toBe(0)
    expect(seen.size).toBeGreaterThan(1)
    await store.delete(key)
    await raw.del(...(await chunkKeysOf(key)))
  })
})
