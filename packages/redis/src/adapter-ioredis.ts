import type { Cluster, Redis } from 'ioredis'
import { fromBuffer, isWrongType, OTHER_TYPE, pairs, toBuffer, type RedisAdapter } from './adapter.js'

type Client = Redis | Cluster
type Reply = [Error | null, unknown]

function ttlArgs(ttl: number | undefined): Array<string | number> {
  return ttl === undefined ? [] : ['PX', Math.ceil(ttl)]
}

function replies(results: Reply[] | null): unknown[] {
  if (results === null) throw new Error('the pipeline was discarded')
  return results.map(([error, value]) => {
    if (error) throw error
    return value
  })
}

/** Tells ioredis clients (5 and 6, Redis and Cluster) from others by their Buffer command variants. */
export function isIoredis(client: unknown): client is Client {
  return typeof client === 'object' && client !== null && typeof (client as Redis).getBuffer === 'function' && typeof (client as Redis).callBuffer === 'function'
}

export function ioredisAdapter(client: Client): RedisAdapter {
  const isCluster = (client as { isCluster?: boolean }).isCluster === true
  return {
    kind: isCluster ? 'ioredis-cluster' : 'ioredis',
    isCluster,
    async get(key) {
      return fromBuffer(await client.getBuffer(key))
    },
    async getWithPttl(key) {
      const replies_ = replies((await client.pipeline().getBuffer(key).pttl(key).exec()) as Reply[] | null)
      return [fromBuffer(replies_[0] as Buffer | null), replies_[1] as number]
    },
    async setGet(key, value, ttl) {
      return fromBuffer((await client.callBuffer('SET', key, toBuffer(value), ...ttlArgs(ttl), 'GET')) as Buffer | null)
    },
    async setGetMany(entries) {
      const pipeline = client.pipeline()
      for (const { key, value, ttl } of entries) pipeline.callBuffer('SET', key, toBuffer(value), ...ttlArgs(ttl), 'GET')
      return replies((await pipeline.exec()) as Reply[] | null).map((v) => fromBuffer(v as Buffer | null))
    },
    async getDelMany(keys) {
      const pipeline = client.pipeline()
      for (const key of keys) pipeline.getdelBuffer(key)
      const results = (await pipeline.exec()) as Reply[] | null
      if (results === null) throw new Error('the pipeline was discarded')
      return results.map(([error, value]) => {
        if (error) {
          if (isWrongType(error)) return OTHER_TYPE
          throw error
        }
        return fromBuffer(value as Buffer | null)
      })
    },
    async mget(keys) {
      return (await client.mgetBuffer(...keys)).map(fromBuffer)
    },
    async del(keys) {
      return keys.length === 0 ? 0 : client.del(...keys)
    },
    async hget(key, field) {
      return fromBuffer(await client.hgetBuffer(key, field))
    },
    async hgetall(key) {
      // The flat reply, not hgetallBuffer's object: a field named "__proto__" must stay a field.
      return pairs((await client.callBuffer('HGETALL', key)) as Buffer[])
    },
    async hset(key, field, value, ttl) {
      const multi = client.multi().hset(key, field, toBuffer(value))
      if (ttl === undefined) multi.persist(key)
      else multi.pexpire(key, Math.ceil(ttl))
      replies((await multi.exec()) as Reply[] | null)
    },
    async hdel(key, field) {
      return client.hdel(key, field)
    },
    async *scan(pattern, count) {
      const nodes: Redis[] = isCluster ? (client as Cluster).nodes('master') : [client as Redis]
      for (const node of nodes) {
        let cursor = '0'
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count)
          cursor = next
          yield* keys
        } while (cursor !== '0')
      }
    },
    async quit() {
      await client.quit()
    },
  }
}
