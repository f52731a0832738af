import { createMemoryStore, inspect, MAGIC, StowageError, StowageErrorCode } from '@stowage/core'
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { Redis } from 'ioredis'
import Keyv from 'keyv'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createKeyv, createKeyvStore, withoutKeyvSerialization } from '../src/index.js'

const prefix = () => `keyv-test-${Math.random().toString(36).slice(2)}:`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let raw: Redis
let store: RedisStore
beforeAll(() => {
  raw = new Redis(inject('redisUrl'))
  store = createRedisStore({ client: raw })
})
afterAll(async () => {
  await raw.quit()
})

describe('what Redis holds', () => {
  it('is one Stowage envelope per key: Keyv JSON text as a string, or with serialization off the { value, expires } object', async () => {
    const p = prefix()
    const on = new Keyv({ store: createKeyvStore(store, { prefix: p }), namespace: 'on' })
    const off = createKeyv(store, { prefix: p, namespace: 'off' })
    const value = { id: 7, tags: ['a', 'b'], at: new Date(0) }
    await on.set('k', value)
    await off.set('k', value)
    const onBytes = new Uint8Array((await raw.getBuffer(`${p}on:k`)) as Buffer)
    const offBytes = new Uint8Array((await raw.getBuffer(`${p}off:k`)) as Buffer)
    expect(onBytes[0]).toBe(MAGIC)
    expect(offBytes[0]).toBe(MAGIC)
    expect(inspect(onBytes).formatVersion).toBeGreaterThan(0)
    const { codec } = createKeyvStore(store)
    expect(typeof codec.decode(onBytes)).toBe('string')
    expect(codec.decode(offBytes)).toEqual({ value, expires: undefined })
    // MessagePack of the object is smaller than the envelope of Keyv's JSON text of it.
    expect(offBytes.byteLength).toBeLessThan(onBytes.byteLength)
    await store.clear(p)
  })

  it('gives each entry its TTL in Redis, so expired entries leave the store (PTTL)', async () => {
    const p = prefix()
    const keyv = createKeyv(store, { prefix: p, namespace: 'ttl', ttl: 60_000 })
    await keyv.set('default', 1)
    await keyv.set('own', 1, 5_000)
    await keyv.set('forever', 1, 0)
    const defaultTtl = await raw.pttl(`${p}ttl:default`)
    expect(defaultTtl).toBeGreaterThan(55_000)
    expect(defaultTtl).toBeLessThanOrEqual(60_000)
    const own = await raw.pttl(`${p}ttl:own`)
    expect(own).toBeGreaterThan(0)
    expect(own).toBeLessThanOrEqual(5_000)
    expect(await raw.pttl(`${p}ttl:forever`)).toBe(-1)
    await keyv.set('short', 'x', 50)
    await sleep(120)
    expect(await raw.exists(`${p}ttl:short`)).toBe(0)
    await store.clear(p)
  })
})

describe('createKeyv (serialization off)', () => {
  it('keeps Dates, Maps, Sets, BigInts and bytes as they went in; a Buffer comes back as a Uint8Array', async () => {
    const keyv = createKeyv(createMemoryStore())
    const value = { at: new Date(5), map: new Map([[1, 'one']]), set: new Set(['x']), big: 2n ** 70n, bytes: new Uint8Array([1, 2, 3]), buffer: Buffer.from('buzz') }
    await keyv.set('v', value)
    const back = (await keyv.get('v')) as typeof value
    expect(back.at).toEqual(new Date(5))
    expect(back.map).toEqual(new Map([[1, 'one']]))
    expect(back.set).toEqual(new Set(['x']))
    expect(back.big).toBe(2n ** 70n)
    expect(back.bytes).toEqual(new Uint8Array([1, 2, 3]))
    expect(back.buffer).toBeInstanceOf(Uint8Array)
    expect([...back.buffer]).toEqual([...Buffer.from('buzz')])
  })

  it('still reads entries the adapter stored as Keyv JSON text before serialization was turned off', async () => {
    const memory = createMemoryStore()
    const before = new Keyv({ store: createKeyvStore(memory) })
    await before.set('old', { n: 1, b: Buffer.from('hi') })
    const after = withoutKeyvSerialization(new Keyv({ store: createKeyvStore(memory) }))
    expect(await after.get('old')).toEqual({ n: 1, b: Buffer.from('hi') })
    await after.set('new', { n: 2 })
    expect(await after.get(['old', 'new'])).toEqual([{ n: 1, b: Buffer.from('hi') }, { n: 2 }])
    // And Keyv with serialization on reads what the other wrote as objects.
    expect(await before.get('new')).toEqual({ n: 2 })
  })

  it('keeps Keyv’s own expiry check: a value past its expires reads as missing', async () => {
    const keyv = createKeyv(createMemoryStore())
    await keyv.set('soon', 1, 1_000)
    const raw = await keyv.get('soon', { raw: true })
    expect(raw?.expires).toBeGreaterThan(Date.now())
  })
})

describe('the adapter', () => {
  it('clears only its prefix and Keyv namespace', async () => {
    const memory = createMemoryStore()
    await memory.set('other', new Uint8Array([1]))
    const a = createKeyv(memory, { prefix: 'p1:', namespace: 'a' })
    const b = createKeyv(memory, { prefix: 'p1:', namespace: 'b' })
    const c = createKeyv(memory, { prefix: 'p2:', namespace: 'a' })
    await Promise.all([a.set('k', 1), b.set('k', 2), c.set('k', 3)])
    await a.clear()
    expect(await a.get('k')).toBeUndefined()
    expect(await b.get('k')).toBe(2)
    expect(await c.get('k')).toBe(3)
    expect(await memory.get('other')).toEqual(new Uint8Array([1]))
  })

  it('reads an entry that does not decode as missing, and Keyv hears an error event', async () => {
    const memory = createMemoryStore()
    const keyv = createKeyv(memory)
    const errors: unknown[] = []
    keyv.on('error', (e: unknown) => errors.push(e))
    await memory.set('keyv:bad', new Uint8Array([0xc1, 1, 2]))
    expect(await keyv.get('bad')).toBeUndefined()
    expect(errors).toHaveLength(1)
    expect(StowageError.isInstance(errors[0])).toBe(true)
  })

  it('reports a store failure to Keyv, which answers false and, with throwOnErrors, throws the StowageError', async () => {
    const memory = createMemoryStore()
    await memory.close()
    const keyv = createKeyv(memory)
    const errors: unknown[] = []
    keyv.on('error', (e: unknown) => errors.push(e))
    expect(await keyv.set('k', 1)).toBe(false)
    expect(StowageError.isInstance(errors[0])).toBe(true)
    const throwing = createKeyv(memory, { throwOnErrors: true })
    await expect(throwing.set('k', 1)).rejects.toSatisfy((e) => StowageError.isInstance(e) && e.code === StowageErrorCode.STORE_ERROR)
  })

  it('refuses a value the codec cannot store, and a negative TTL, as INVALID_ARGUMENT or UNSUPPORTED_TYPE', async () => {
    const adapter = createKeyvStore(createMemoryStore())
    await expect(adapter.set('f', { f: () => 1 })).rejects.toSatisfy((e) => StowageError.isInstance(e) && e.code === StowageErrorCode.UNSUPPORTED_TYPE)
    await expect(adapter.set('t', 1, -5)).rejects.toSatisfy((e) => StowageError.isInstance(e) && e.code === StowageErrorCode.INVALID_ARGUMENT)
  })

  it('refuses what is not a Stowage store', () => {
    expect(() => createKeyvStore(new Map() as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
  })

  it('leaves the store open on disconnect(): the store is yours', async () => {
    const memory = createMemoryStore()
    const keyv = createKeyv(memory)
    await keyv.set('k', 1)
    await keyv.disconnect()
    expect(await memory.get('keyv:k')).toBeInstanceOf(Uint8Array)
  })
})
