import type { RedisClientType, RedisClusterType } from 'redis'
import { fromBuffer, pairs, toBuffer, type RedisAdapter } from './adapter.js'
import { keySlot } from './key-slot.js'
import { DEL_RETURNING_HEAD, isNoScript, SET_RETURNING_HEAD, sha1 } from './scripts.js'
import { slotName } from './slot-suffix.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyClient = RedisClientType<any, any, any, any, any>

const BLOB_STRING = 36
// RESP_TYPES.ARRAY ('*') and MAP ('%'): a hash reply is an array in RESP2 (node-redis 5's default)
// and a map in RESP3 (node-redis 6's); asked as arrays, both stay a flat list of fields and values.
const ARRAY = 42
const MAP = 37

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCluster = RedisClusterType<any, any, any, any, any>

/** Tells a node-redis (v5+) client or cluster by its type-mapping API. */
export function isNodeRedis(client: unknown): client is AnyClient | AnyCluster {
  return typeof client === 'object' && client !== null && typeof (client as AnyClient).withTypeMapping === 'function' && typeof (client as AnyClient).sendCommand === 'function'
}

/** Tells a node-redis cluster (`createCluster`) from a single client: it knows its masters. */
export function isNodeRedisCluster(client: unknown): client is AnyCluster {
  return isNodeRedis(client) && typeof (client as AnyCluster).nodeClient === 'function' && Array.isArray((client as AnyCluster).masters)
}

// The scripts' TTL argument: milliseconds, or empty for none.
function ttlArg(ttl: number | undefined): string {
  return ttl === undefined ? '' : String(Math.ceil(ttl))
}

/**
 * The adapter over a node-redis client or cluster. A cluster sends each command to the master of
 * its key's slot (the store only ever groups keys of one slot), and scans every master.
 */
export function nodeRedisAdapter(client: AnyClient | AnyCluster): RedisAdapter {
  const cluster = isNodeRedisCluster(client)
  // Bulk strings come back as Buffers instead of being decoded as UTF-8 text. 36 is node-redis's
  // RESP_TYPES.BLOB_STRING ('$'), inlined so that loading this package never needs 'redis'.
  const typed = (client as AnyClient).withTypeMapping({ [BLOB_STRING]: Buffer })
  const flat = { typeMapping: { [BLOB_STRING]: Buffer, [ARRAY]: Array, [MAP]: Array } }
  const bytes = { typeMapping: { [BLOB_STRING]: Buffer } }
  // node-redis routes a cluster command by its own slot of the key (npm cluster-key-slot), which
  // is not Redis's for keys such as 'foo{}{bar}', and node-redis 5 then fails with MOVED: each
  // command is routed by a brace-free name of the slot Redis gives the key (see slot-suffix.ts).
  const route = (key: string) => slotName(keySlot(key))
  const send = <T = unknown>(key: string, args: Array<string | Buffer>, options: object = bytes) =>
    (cluster ? (client as AnyCluster).sendCommand(route(key), false, args, options) : (client as AnyClient).sendCommand(args, options)) as Promise<T>
  // EVALSHA, and EVAL once when the server's script cache does not have it (a restart, SCRIPT FLUSH).
  const evalHead = async (script: string, key: string, args: Array<string | Buffer>): Promise<Uint8Array | null> => {
    try {
      return fromBuffer(await send<Buffer | null>(key, ['EVALSHA', sha1(script), '1', key, ...args]))
    } catch (e) {
      if (!isNoScript(e)) throw e
      return fromBuffer(await send<Buffer | null>(key, ['EVAL', script, '1', key, ...args]))
    }
  }
  const ttlArgs = (ttl: number | undefined) => (ttl === undefined ? [] : ['PX', String(Math.ceil(ttl))])
  return {
    kind: cluster ? 'node-redis-cluster' : 'node-redis',
    isCluster: cluster,
    get: (key) => send<Buffer | null>(key, ['GET', key]).then(fromBuffer),
    async getWithPttl(key) {
      // Commands sent in one tick go out as one pipeline in node-redis.
      const [value, pttl] = await Promise.all([send<Buffer | null>(key, ['GET', key]), send<number>(key, ['PTTL', key])])
      return [fromBuffer(value), Number(pttl)]
    },
    async getManyWithPttl(keys) {
      // Sent in one tick: one pipeline.
      const [values, ...pttls] = await Promise.all([send<Array<Buffer | null>>(keys[0] as string, ['MGET', ...keys]), ...keys.map((key) => send<number>(key, ['PTTL', key]))])
      return (values as Array<Buffer | null>).map((v, i): [Uint8Array | null, number] => [fromBuffer(v), Number(pttls[i])])
    },
    setHead: (key, value, ttl) => evalHead(SET_RETURNING_HEAD, key, [toBuffer(value), ttlArg(ttl)]),
    // Commands sent in one tick go out as one pipeline in node-redis.
    setHeadMany: (entries) => Promise.all(entries.map(({ key, value, ttl }) => evalHead(SET_RETURNING_HEAD, key, [toBuffer(value), ttlArg(ttl)]))),
    async setMany(entries) {
      await Promise.all(entries.map(({ key, value, ttl }) => send(key, ['SET', key, toBuffer(value), ...ttlArgs(ttl)])))
    },
    delHeadMany: (keys) => Promise.all(keys.map((key) => evalHead(DEL_RETURNING_HEAD, key, []))),
    async expireMany(keys, ms) {
      await Promise.all(keys.map((key) => send(key, ms === undefined ? ['PERSIST', key] : ['PEXPIRE', key, String(Math.ceil(ms))])))
    },
    async mget(keys) {
      return (await send<Array<Buffer | null>>(keys[0] as string, ['MGET', ...keys])).map(fromBuffer)
    },
    async evalScript(script, keys, args) {
      const rest = [String(keys.length), ...keys, ...args.map((a) => (typeof a === 'string' ? a : toBuffer(a)))]
      try {
        return await send(keys[0] as string, ['EVALSHA', sha1(script), ...rest])
      } catch (e) {
        if (!isNoScript(e)) throw e
        return send(keys[0] as string, ['EVAL', script, ...rest])
      }
    },
    async del(keys) {
      return keys.length === 0 ? 0 : Number(await send(keys[0] as string, ['DEL', ...keys]))
    },
    async hget(key, field) {
      return fromBuffer(await send<Buffer | null>(key, ['HGET', key, field]))
    },
    async hgetall(key) {
      return pairs(await send<Buffer[]>(key, ['HGETALL', key], flat))
    },
    async hset(key, field, value, ttl) {
      const multi = (cluster ? (typed as unknown as AnyCluster).multi(route(key)) : typed.multi()).hSet(key, field, toBuffer(value))
      if (ttl === undefined) multi.persist(key)
      else multi.pExpire(key, Math.ceil(ttl))
      await multi.exec()
    },
    async hdel(key, field) {
      return Number(await send(key, ['HDEL', key, field]))
    },
    async *scan(pattern, count) {
      const nodes = cluster ? await Promise.all((client as AnyCluster).masters.map((master) => (client as AnyCluster).nodeClient(master))) : [client as AnyClient]
      for (const node of nodes) {
        for await (const keys of node.scanIterator({ MATCH: pattern, COUNT: count })) yield* keys as string[]
      }
    },
    async quit() {
      await client.close()
    },
  }
}
