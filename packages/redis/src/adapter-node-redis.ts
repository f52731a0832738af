import type { RedisClientType } from 'redis'
import { fromBuffer, isWrongType, OTHER_TYPE, pairs, toBuffer, type RedisAdapter } from './adapter.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyClient = RedisClientType<any, any, any, any, any>

const BLOB_STRING = 36
// RESP_TYPES.ARRAY ('*'): in RESP3 a hash reply is a map; asked as an array, it stays a flat list.
const ARRAY = 42

/** Tells a node-redis (v5+) client by its type-mapping API. */
export function isNodeRedis(client: unknown): client is AnyClient {
  return typeof client === 'object' && client !== null && typeof (client as AnyClient).withTypeMapping === 'function' && typeof (client as AnyClient).sendCommand === 'function'
}

function setOptions(ttl: number | undefined) {
  return ttl === undefined ? { GET: true } : { expiration: { type: 'PX' as const, value: Math.ceil(ttl) }, GET: true }
}

export function nodeRedisAdapter(client: AnyClient): RedisAdapter {
  // Bulk strings come back as Buffers instead of being decoded as UTF-8 text. 36 is node-redis's
  // RESP_TYPES.BLOB_STRING ('$'), inlined so that loading this package never needs 'redis'.
  const typed = client.withTypeMapping({ [BLOB_STRING]: Buffer })
  return {
    kind: 'node-redis',
    isCluster: false,
    async get(key) {
      return fromBuffer((await typed.get(key)) as Buffer | null)
    },
    async getWithPttl(key) {
      // Commands sent in one tick go out as one pipeline in node-redis.
      const [value, pttl] = await Promise.all([typed.get(key), typed.pTTL(key)])
      return [fromBuffer(value as Buffer | null), Number(pttl)]
    },
    async setGet(key, value, ttl) {
      return fromBuffer((await typed.set(key, toBuffer(value), setOptions(ttl))) as unknown as Buffer | null)
    },
    async setGetMany(entries) {
      const multi = typed.multi()
      for (const { key, value, ttl } of entries) multi.set(key, toBuffer(value), setOptions(ttl))
      return ((await multi.execAsPipeline()) as unknown as Array<Buffer | null>).map(fromBuffer)
    },
    async getDelMany(keys) {
      // Commands sent in one tick go out as one pipeline in node-redis.
      return Promise.all(
        keys.map((key) =>
          typed.getDel(key).then(
            (value) => fromBuffer(value as Buffer | null),
            (e: unknown): typeof OTHER_TYPE => {
              if (isWrongType(e)) return OTHER_TYPE
              throw e
            },
          ),
        ),
      )
    },
    async mget(keys) {
      return ((await typed.mGet([...keys])) as Array<Buffer | null>).map(fromBuffer)
    },
    async del(keys) {
      return keys.length === 0 ? 0 : Number(await client.del([...keys]))
    },
    async hget(key, field) {
      return fromBuffer((await typed.hGet(key, field)) as Buffer | null)
    },
    async hgetall(key) {
      return pairs((await typed.sendCommand(['HGETALL', key], { typeMapping: { [BLOB_STRING]: Buffer, [ARRAY]: Array } })) as Buffer[])
    },
    async hset(key, field, value, ttl) {
      const multi = typed.multi().hSet(key, field, toBuffer(value))
      if (ttl === undefined) multi.persist(key)
      else multi.pExpire(key, Math.ceil(ttl))
      await multi.exec()
    },
    async hdel(key, field) {
      return Number(await client.hDel(key, field))
    },
    async *scan(pattern, count) {
      for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: count })) yield* keys as string[]
    },
    async quit() {
      await client.close()
    },
  }
}
