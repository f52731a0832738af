import type { Cluster, Redis } from 'ioredis'
import { fromBuffer, toBuffer, type RedisAdapter } from './adapter.js'

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
      return replies((await pipeline.exec()) as Reply[] | null).map((v) => fromBuffer(v as Buffer | null))
    },
    async mget(keys) {
      return (await client.mgetBuffer(...keys)).map(fromBuffer)
    },
    async del(keys) {
      return keys.length === 0 ? 0 : client.del(...keys)
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
