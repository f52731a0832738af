import type { ChainableCommander, Cluster, Redis } from 'ioredis'
import { fromBuffer, pairs, toBuffer, type RedisAdapter } from './adapter.js'
import { DEL_RETURNING_HEAD, isNoScript, SET_RETURNING_HEAD, sha1 } from './scripts.js'

type Client = Redis | Cluster
type Reply = [Error | null, unknown]

function ttlArgs(ttl: number | undefined): Array<string | number> {
  return ttl === undefined ? [] : ['PX', Math.ceil(ttl)]
}

// The scripts' TTL argument: milliseconds, or empty for none.
function ttlArg(ttl: number | undefined): string {
  return ttl === undefined ? '' : String(Math.ceil(ttl))
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

// ioredis Cluster checks that a pipeline's keys belong to one node with its own slot function
// (cluster-key-slot), which places some keys with odd hash tags elsewhere than Redis does
// (`foo{}{bar}`: Redis hashes the whole key, as an empty first tag says; cluster-key-slot does
// not). Keys this store groups in one slot, as Redis places them, can then be refused as spanning
// nodes. Such a batch goes one command at a time instead, each routed (and redirected) on its own.
const isSlotGroupRefusal = (e: unknown): boolean => /same slots allocation group/.test(String((e as Error)?.message ?? e))

export function ioredisAdapter(client: Client): RedisAdapter {
  const isCluster = (client as { isCluster?: boolean }).isCluster === true
  // What `use` makes of the pipeline's replies; when a Cluster refuses the pipeline as spanning
  // nodes (isSlotGroupRefusal), what `oneByOne` makes of the same commands sent one at a time.
  const execOr = async <T>(pipeline: ChainableCommander, use: (results: Reply[] | null) => T | Promise<T>, oneByOne: () => Promise<T>): Promise<T> => {
    let results: Reply[] | null
    try {
      results = (await pipeline.exec()) as Reply[] | null
    } catch (e) {
      if (!isCluster || !isSlotGroupRefusal(e)) throw e
      return oneByOne()
    }
    return use(results)
  }
  // EVALSHA, and EVAL once when the server's script cache does not have it (a restart, SCRIPT FLUSH).
  const evalHead = async (script: string, key: string, args: Array<Buffer | string>): Promise<Uint8Array | null> => {
    try {
      return fromBuffer((await client.callBuffer('EVALSHA', sha1(script), 1, key, ...args)) as Buffer | null)
    } catch (e) {
      if (!isNoScript(e)) throw e
      return fromBuffer((await client.callBuffer('EVAL', script, 1, key, ...args)) as Buffer | null)
    }
  }
  // Pipelined; the calls refused with NOSCRIPT did not run and are sent again with EVAL.
  const evalHeadMany = async (script: string, calls: Array<[string, Array<Buffer | string>]>): Promise<Array<Uint8Array | null>> => {
    const pipeline = client.pipeline()
    for (const [key, args] of calls) pipeline.callBuffer('EVALSHA', sha1(script), 1, key, ...args)
    return execOr(
      pipeline,
      (results) => {
        if (results === null) throw new Error('the pipeline was discarded')
        return Promise.all(
          results.map(async ([error, value], i) => {
            if (error === null) return fromBuffer(value as Buffer | null)
            if (!isNoScript(error)) throw error
            const [key, args] = calls[i] as [string, Array<Buffer | string>]
            return fromBuffer((await client.callBuffer('EVAL', script, 1, key, ...args)) as Buffer | null)
          }),
        )
      },
      () => Promise.all(calls.map(([key, args]) => evalHead(script, key, args))),
    )
  }
  return {
    kind: isCluster ? 'ioredis-cluster' : 'ioredis',
    isCluster,
    get: (key) => client.getBuffer(key).then(fromBuffer),
    async getWithPttl(key) {
      const replies_ = replies((await client.pipeline().getBuffer(key).pttl(key).exec()) as Reply[] | null)
      return [fromBuffer(replies_[0] as Buffer | null), replies_[1] as number]
    },
    async getManyWithPttl(keys) {
      const withPttls = (values: Array<Buffer | null>, pttls: number[]) => values.map((v, i): [Uint8Array | null, number] => [fromBuffer(v), pttls[i] as number])
      // A Cluster refuses a pipeline holding an MGET whose keys its own slot rule places apart
      // (keys Redis puts in one slot, as "a{}{b}"), which a plain MGET routes by its first key: sent
      // as commands of their own there.
      if (isCluster) {
        const [values, pttls] = await Promise.all([client.mgetBuffer(...keys), Promise.all(keys.map((key) => client.pttl(key)))])
        return withPttls(values, pttls)
      }
      const pipeline = client.pipeline().mgetBuffer(...keys)
      for (const key of keys) pipeline.pttl(key)
      const [values, ...pttls] = replies((await pipeline.exec()) as Reply[] | null) as [Array<Buffer | null>, ...number[]]
      return withPttls(values, pttls)
    },
    setHead: (key, value, ttl) => evalHead(SET_RETURNING_HEAD, key, [toBuffer(value), ttlArg(ttl)]),
    async setHeadMany(entries) {
      return evalHeadMany(SET_RETURNING_HEAD, entries.map(({ key, value, ttl }) => [key, [toBuffer(value), ttlArg(ttl)]]))
    },
    async setMany(entries) {
      const pipeline = client.pipeline()
      for (const { key, value, ttl } of entries) pipeline.callBuffer('SET', key, toBuffer(value), ...ttlArgs(ttl))
      await execOr(pipeline, replies, () => Promise.all(entries.map(({ key, value, ttl }) => client.callBuffer('SET', key, toBuffer(value), ...ttlArgs(ttl)))))
    },
    async delHeadMany(keys) {
      return evalHeadMany(DEL_RETURNING_HEAD, keys.map((key) => [key, []]))
    },
    async expireMany(keys, ms) {
      const pipeline = client.pipeline()
      for (const key of keys) {
        if (ms === undefined) pipeline.persist(key)
        else pipeline.pexpire(key, Math.ceil(ms))
      }
      await execOr(pipeline, replies, () => Promise.all(keys.map((key) => (ms === undefined ? client.persist(key) : client.pexpire(key, Math.ceil(ms))))))
    },
    async mget(keys) {
      return (await client.mgetBuffer(...keys)).map(fromBuffer)
    },
    async evalScript(script, keys, args) {
      const rest = [keys.length, ...keys, ...args.map((a) => (typeof a === 'string' ? a : toBuffer(a)))]
      try {
        return await client.callBuffer('EVALSHA', sha1(script), ...rest)
      } catch (e) {
        if (!isNoScript(e)) throw e
        return client.callBuffer('EVAL', script, ...rest)
      }
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
