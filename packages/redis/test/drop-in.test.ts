// The codec as a drop-in for msgpackr's pack/unpack beside a Redis client, without this package's
// store: on Node encode returns a Buffer, so `client.set(key, encode(value))` stores the bytes with
// ioredis 5 and 6 and node-redis 5 and 6 (a plain Uint8Array was stored by ioredis as the text
// "193,2,0,…" and refused by node-redis). Reading the key as text fails loudly, naming the cause.
// The types stay Uint8Array (the portable build returns one), so TypeScript wants `as Buffer` where
// a client's types ask for a Buffer: true on Node, which is what these tests check.
import { createCache, createCodec, decode, decodeAsync, encode, encodeAsync, StowageErrorCode } from '@stowage/core'
import { Redis } from 'ioredis'
import { Redis as Redis5 } from 'ioredis5'
import { createClient, RESP_TYPES } from 'redis'
import { createClient as createClient6, RESP_TYPES as RESP_TYPES6 } from 'redis6'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createRedisStore } from '../src/index.js'

const url = inject('redisUrl')
const prefix = `stowage-test:drop-in:${Math.random().toString(36).slice(2)}:`
const rows = Array.from({ length: 1000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
const values: Array<[string, unknown]> = [
  ['a small object', { id: 42n, at: new Date(1700000000000), tags: new Set(['a']) }],
  ['1,000 rows (deflated)', rows],
  ['rows left uncompressed', rows.slice(0, 200)],
]

let ioredis: Redis
let ioredis5: Redis5
let nodeRedis: ReturnType<typeof createClient>
let nodeRedis6: ReturnType<typeof createClient6>
const keys: string[] = []
const key = (name: string) => {
  keys.push(prefix + name)
  return prefix + name
}

beforeAll(async () => {
  ioredis = new Redis(url)
  ioredis5 = new Redis5(url)
  nodeRedis = createClient({ url })
  await nodeRedis.connect()
  nodeRedis6 = createClient6({ url })
  await nodeRedis6.connect()
})
afterAll(async () => {
  if (keys.length > 0) await ioredis.del(...keys)
  await ioredis.quit()
  await ioredis5.quit()
  await nodeRedis.close()
  await nodeRedis6.close()
})

describe('client.set(key, encode(value)) round trips', () => {
  it.each(values)('ioredis 6 and 5: set, then decode(await getBuffer(key)) — %s', async (name, value) => {
    for (const [client, label] of [
      [ioredis, 'v6'],
      [ioredis5, 'v5'],
    ] as const) {
      const k = key(`ioredis-${label}-${name}`)
      await client.set(k, encode(value) as Buffer)
      expect(decode((await client.getBuffer(k))!)).toStrictEqual(value)
      await client.set(k, (await encodeAsync(value)) as Buffer, 'PX', 60_000)
      expect(await decodeAsync((await client.getBuffer(k))!)).toStrictEqual(value)
    }
  })

  it.each(values)('node-redis 5 and 6: set, then decode a get with RESP_TYPES.BLOB_STRING mapped to Buffer — %s', async (name, value) => {
    const k5 = key(`node-redis-v5-${name}`)
    await nodeRedis.set(k5, encode(value) as Buffer)
    expect(decode((await nodeRedis.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }).get(k5))!)).toStrictEqual(value)
    const k6 = key(`node-redis-v6-${name}`)
    await nodeRedis6.set(k6, createCodec().encode(value) as Buffer, { PX: 60_000 })
    expect(decode((await nodeRedis6.withTypeMapping({ [RESP_TYPES6.BLOB_STRING]: Buffer }).get(k6))!)).toStrictEqual(value)
  })

  it('one client writes, another reads: the stored bytes are the envelope, byte for byte', async () => {
    const k = key('cross')
    const bytes = encode(rows)
    await nodeRedis.set(k, bytes as Buffer)
    expect(new Uint8Array((await ioredis.getBuffer(k))!)).toStrictEqual(new Uint8Array(bytes))
    expect(await ioredis.strlen(k)).toBe(bytes.length)
  })

  it('Cache.getBytes hands out bytes another client stores as they are', async () => {
    const cache = createCache({ store: createRedisStore({ client: ioredis }), namespace: `${prefix}cache` })
    await cache.set('rows', rows)
    const bytes = await cache.getBytes('rows')
    const k = key('copied')
    await ioredis5.set(k, bytes as Buffer)
    expect(decode((await ioredis5.getBuffer(k))!)).toStrictEqual(rows)
    await cache.delete('rows')
  })
})

describe('bytes read or stored as text fail loudly, naming the cause', () => {
  it('a key read as a string (ioredis get, node-redis without a type mapping) is INVALID_ARGUMENT that says so', async () => {
    const k = key('as-text')
    await ioredis.set(k, encode(rows) as Buffer)
    for (const text of [await ioredis.get(k), await nodeRedis.get(k)]) {
      expect(typeof text).toBe('string')
      expect(() => decode(text as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT, message: expect.stringMatching(/got a string: UTF-8 text: bytes read as a string.*getBuffer/) }))
    }
  })

  it('a plain Uint8Array that ioredis stored as "193,2,0,…" is named when read back, as a string or as bytes', async () => {
    const k = key('stringified')
    await ioredis.set(k, new Uint8Array(encode(rows)) as Buffer)
    expect(await ioredis.get(k)).toMatch(/^193,\d+,\d+,/)
    const [asBytes, asText] = [await ioredis.getBuffer(k), await ioredis.get(k)]
    expect(() => decode(asBytes!)).toThrow(expect.objectContaining({ code: StowageErrorCode.BAD_MAGIC, message: expect.stringMatching(/the text "193,.*stored as text, as ioredis stores a plain Uint8Array/) }))
    expect(() => decode(asText as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT, message: expect.stringMatching(/got a string: the text "193,/) }))
  })
})
