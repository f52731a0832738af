import { checkOptionNames, checkStoreEntry as checkEntry, checkStoreKey as checkKey, StowageError, StowageErrorCode, type Store, type StoreEntry, type StoreFence, type StoreSetOptions } from '@stowage/core'
import { createRequire } from 'node:module'
import { fromBuffer, type RedisAdapter } from './adapter.js'
import { ioredisAdapter, isIoredis } from './adapter-ioredis.js'
import { isNodeRedis, nodeRedisAdapter } from './adapter-node-redis.js'
import { Deadlines } from './deadline.js'
import { isChunkName } from './chunk-names.js'
import { ChunkedValues } from './chunked-values.js'
import { setHeadFenced } from './fenced-set.js'
import { MANIFEST_MAGIC } from './chunks.js'
import { ENSURE } from './scripts.js'
import { bySlot } from './slots.js'

/** Options of {@link createRedisStore}: a `client` you own, or a `url` for a client the store owns. */
export interface RedisStoreOptions {
  /** An ioredis (5 or 6) `Redis` or `Cluster`, or a connected node-redis (5+) client. You keep ownership: `close()` leaves it open. */
  readonly client?: unknown
  /** A `redis://` URL; the store then creates an ioredis client (ioredis must be installed) and closes it on `close()`. */
  readonly url?: string
  /** Longest wait for one Redis command before the call rejects with STORE_ERROR, in ms. Defaults to 2000 ({@link DEFAULT_COMMAND_TIMEOUT}). */
  readonly commandTimeout?: number
  /** Values larger than this many bytes are stored as chunks plus a manifest. Defaults to 8 MiB ({@link DEFAULT_CHUNK_SIZE}). */
  readonly chunkSize?: number
  /** COUNT hint of each SCAN call behind `keys` and `clear`. Defaults to 500. */
  readonly scanCount?: number
}

/** Default of {@link RedisStoreOptions.commandTimeout}. */
export const DEFAULT_COMMAND_TIMEOUT = 2000
/** Default of {@link RedisStoreOptions.chunkSize}: 8 MiB, far below Redis's 512 MB `proto-max-bulk-len`. */
export const DEFAULT_CHUNK_SIZE = 8 * 1024 * 1024
// Timeouts in a row after which a connection of the store's own is dialled again.
const REDIAL_AFTER = 3
// Keys deleted at once by clear().
const DELETE_BATCH = 500

/** A {@link Store} over Redis, with the client library it runs on. */
export interface RedisStore extends Required<Store> {
  /** Which client library and topology the store drives. */
  readonly clientKind: 'ioredis' | 'ioredis-cluster' | 'node-redis' | 'node-redis-cluster'
}

function failure(what: string, e: unknown): StowageError {
  if (StowageError.isInstance(e)) return e
  const message = String((e as Error)?.message ?? e)
  // node-redis says this of a client never connected as well as of one closed.
  const hint = message === 'The client is closed' ? ' (a node-redis client must be connected first: await client.connect())' : ''
  return new StowageError(StowageErrorCode.STORE_ERROR, `Redis ${what} failed: ${message}${hint}`, { cause: e })
}

function invalid(message: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message)
}



function checkField(field: unknown): string {
  if (typeof field !== 'string') throw invalid('a bundle field must be a string')
  return field
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&')
}

class RedisStoreImpl implements RedisStore {
  readonly name = 'redis'
  private closed = false

  constructor(
    private readonly adapter: RedisAdapter,
    private readonly owned: boolean,
    private readonly timeout: number,
    chunkSize: number,
    private readonly scanCount: number,
    /** The latest connection error of a connection the store made itself (none for a client it was given). */
    private readonly lastError: () => unknown = () => undefined,
    /** Drops and re-dials a connection the store made itself (none for a client it was given). */
    private readonly redial: (() => void) | undefined = undefined,
  ) {
    this.chunks = new ChunkedValues((what, fn) => this.call(what, fn), adapter.isCluster, chunkSize)
    this.deadlines = new Deadlines(
      timeout,
      lastError,
      () => this.timedOut(),
      () => (this.silent = 0),
      (what, e) => this.failed(what, e),
    )
  }

  private readonly chunks: ChunkedValues
  private readonly deadlines: Deadlines

  // Timeouts in a row with no answer in between: past REDIAL_AFTER, the connection is presumed dead.
  private silent = 0

  get clientKind(): RedisStore['clientKind'] {
    return this.adapter.kind
  }

  // Not an async function: every read of the Cache comes here, and an async frame is a promise
  // and a generator object more.
  get(key: string): Promise<Uint8Array | undefined> {
    try {
      checkKey(key)
    } catch (e) {
      return Promise.reject(e)
    }
    return this.call('GET', (a) => a.get(key)).then((bytes) => (bytes === null ? undefined : this.chunks.resolve(key, bytes)))
  }

  async getWithTtl(key: string): Promise<{ value: Uint8Array; ttl: number | undefined } | undefined> {
    checkKey(key)
    const [bytes, pttl] = await this.call('GET', (a) => a.getWithPttl(key))
    if (bytes === null) return undefined
    const value = await this.chunks.resolve(key, bytes)
    return value === undefined ? undefined : { value, ttl: pttl === -1 ? undefined : Math.max(1, pttl) }
  }

  async getManyWithTtl(keys: readonly string[]): Promise<Array<{ value: Uint8Array; ttl: number | undefined } | undefined>> {
    keys.forEach(checkKey)
    const out = new Array<{ value: Uint8Array; ttl: number | undefined } | undefined>(keys.length)
    await Promise.all(
      bySlot(keys, this.adapter.isCluster).map(async (group) => {
        const found = await this.call('MGET', (a) => a.getManyWithPttl(group.map((i) => keys[i] as string)))
        await Promise.all(group.map(async (i, j) => {
          const [bytes, pttl] = found[j] as [Uint8Array | null, number]
          const value = bytes === null ? undefined : await this.chunks.resolve(keys[i] as string, bytes)
          out[i] = value === undefined ? undefined : { value, ttl: pttl === -1 ? undefined : Math.max(1, pttl) }
        }))
      }),
    )
    return out
  }

  async set(key: string, value: Uint8Array, options?: StoreSetOptions): Promise<void> {
    checkEntry(key, value, options?.ttl)
    await this.write(key, value, options?.ttl, options?.fence)
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key)
    return (await this.deleteMany([key])) === 1
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    keys.forEach(checkKey)
    const out = new Array<Uint8Array | undefined>(keys.length)
    await Promise.all(
      bySlot(keys, this.adapter.isCluster).map(async (group) => {
        const values = await this.call('MGET', (a) => a.mget(group.map((i) => keys[i] as string)))
        await Promise.all(group.map(async (i, j) => {
          const bytes = values[j]
          out[i] = bytes == null ? undefined : await this.chunks.resolve(keys[i] as string, bytes)
        }))
      }),
    )
    return out
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    for (const { key, value, ttl } of entries) checkEntry(key, value, ttl)
    const small = entries.filter((e) => !this.chunks.needsChunks(e.value))
    const big = entries.filter((e) => this.chunks.needsChunks(e.value))
    await Promise.all([
      ...bySlot(small.map((e) => e.key), this.adapter.isCluster).map(async (group) => {
        const batch = group.map((i) => small[i] as StoreEntry)
        const old = await this.call('SET', (a) => a.setHeadMany(batch.map(({ key, value, ttl }) => ({ key, value, ttl }))))
        await Promise.all(batch.map((e, j) => this.chunks.drop(e.key, old[j] ?? null, undefined)))
      }),
      ...big.map((e) => this.write(e.key, e.value, e.ttl)),
    ])
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    keys.forEach(checkKey)
    let removed = 0
    await Promise.all(
      bySlot(keys, this.adapter.isCluster).map(async (group) => {
        const batch = group.map((i) => keys[i] as string)
        const old = await this.call('DEL', (a) => a.delHeadMany(batch))
        await Promise.all(
          batch.map((key, j) => {
            const head = old[j] ?? null
            if (head === null) return undefined
            removed++
            return this.chunks.drop(key, head, undefined)
          }),
        )
      }),
    )
    return removed
  }

  // Chunks are never deleted here: each goes with its manifest (ChunkedValues.drop), so no prefix can
  // take away the chunks of a key it does not hold, nor those of a write under way.
  // One script per key (scripts.ts, ENSURE), all sent at once. For small values: the tags'
  // generations. A manifest found under a key is resolved, its TTL left as it is.
  async ensureMany(entries: readonly StoreEntry[]): Promise<Uint8Array[]> {
    for (const { key, value, ttl } of entries) {
      checkEntry(key, value, ttl)
      if (this.chunks.needsChunks(value)) throw new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `ensureMany keeps values it can store whole: at most chunkSize bytes, not starting with the chunk manifest's magic (${key})`)
    }
    const found = await this.call('EVALSHA ensure', (a) =>
      Promise.all(entries.map(({ key, value, ttl }) => a.evalScript(ENSURE, [key], [value, ttl === undefined ? '' : String(Math.ceil(ttl)), MANIFEST_MAGIC]))),
    )
    return Promise.all(
      found.map(async (reply, i) => {
        const key = (entries[i] as StoreEntry).key
        const value = await this.chunks.resolve(key, fromBuffer(reply as Buffer) as Uint8Array)
        if (value === undefined) throw new StowageError(StowageErrorCode.CORRUPT, `the chunked value under ${key} has lost its chunks`)
        return value
      }),
    )
  }

  async clear(prefix: string): Promise<void> {
    let batch: string[] = []
    for await (const key of this.scan(prefix)) {
      batch.push(key)
      if (batch.length >= DELETE_BATCH) {
        await this.deleteMany(batch)
        batch = []
      }
    }
    if (batch.length > 0) await this.deleteMany(batch)
  }

  async *keys(prefix: string): AsyncIterable<string> {
    yield* this.scan(prefix)
  }

  async getField(key: string, field: string): Promise<Uint8Array | undefined> {
    checkKey(key)
    return (await this.call('HGET', (a) => a.hget(key, checkField(field)))) ?? undefined
  }

  async getFields(key: string): Promise<Map<string, Uint8Array>> {
    checkKey(key)
    return this.call('HGETALL', (a) => a.hgetall(key))
  }

  async setField(key: string, field: string, value: Uint8Array, options?: StoreSetOptions): Promise<void> {
    checkEntry(key, value, options?.ttl)
    await this.call('HSET', (a) => a.hset(key, checkField(field), value, options?.ttl))
  }

  async deleteField(key: string, field: string): Promise<boolean> {
    checkKey(key)
    return (await this.call('HDEL', (a) => a.hdel(key, checkField(field)))) === 1
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.owned) await this.adapter.quit().catch(() => {})
  }

  private async *scan(prefix: string): AsyncIterable<string> {
    this.open()
    const seen = new Set<string>()
    const iterator = this.adapter.scan(`${globEscape(prefix)}*`, this.scanCount)[Symbol.asyncIterator]()
    for (;;) {
      const next = await this.call('SCAN', () => iterator.next())
      if (next.done) return
      const key = next.value
      // SCAN may return a key twice; chunks are the store's own, not the caller's keys.
      if (seen.has(key) || isChunkName(key)) continue
      seen.add(key)
      yield key
    }
  }

  private open(): void {
    if (this.closed) throw new StowageError(StowageErrorCode.STORE_ERROR, 'the Redis store is closed')
  }

  // One Redis call, bounded by the command timeout and with its failure typed. Not an async
  // function: every read goes through here, and an async frame is a promise and a tick more.
  private call<T>(what: string, fn: (adapter: RedisAdapter) => Promise<T>): Promise<T> {
    let work: Promise<T>
    try {
      this.open()
    } catch (e) {
      return Promise.reject(e)
    }
    try {
      work = fn(this.adapter)
    } catch (e) {
      work = Promise.reject(e)
    }
    // A call answered in time resets `silent`; one that failed rejects with failed()'s error; a
    // timeout rejects with its own (Deadlines, as constructed above).
    return this.deadlines.run(work, what)
  }

  // The error a failed call rejects with.
  private failed(what: string, e: unknown): StowageError {
    // ioredis's own commandTimeout (on the store's own connection) may fire first.
    if (e instanceof Error && e.message === 'Command timed out') this.timedOut()
    const connection = this.lastError()
    if (connection !== undefined && !StowageError.isInstance(e)) {
      // The command's own error ("max retries reached") says less than why the connection is down.
      const message = `Redis ${what} failed: ${String((e as Error)?.message ?? e)} (the connection: ${String((connection as Error)?.message ?? connection)})`
      return new StowageError(StowageErrorCode.STORE_ERROR, message, { cause: connection })
    }
    return failure(what, e)
  }

  // A connection that stays open but never answers (half-open: the peer or a middlebox dropped it
  // without a FIN) would time out every call forever: after a few timeouts in a row, a connection
  // of the store's own is dropped and dialled again. A client it was given stays the caller's.
  private timedOut(): void {
    if (++this.silent < REDIAL_AFTER || this.redial === undefined) return
    this.silent = 0
    this.redial()
  }

  private async write(key: string, value: Uint8Array, ttl: number | undefined, fence?: StoreFence): Promise<void> {
    if (this.chunks.needsChunks(value)) return this.chunks.write(key, value, ttl, fence)
    const old = fence === undefined ? await this.call('SET', (a) => a.setHead(key, value, ttl)) : await setHeadFenced((what, fn) => this.call(what, fn), key, value, ttl, fence)
    await this.chunks.drop(key, old, undefined)
  }


}

/**
 * Creates a {@link Store} over Redis. Values travel as Buffers over the caller's bytes (never
 * copied, never turned into text); batches go as one MGET or pipeline per hash slot; `keys` and
 * `clear` use SCAN on every master, never KEYS; values above `chunkSize` are stored as chunks
 * plus a manifest swapped in atomically. Overwrites and deletes run a small Lua script that
 * reports whether the old value was a chunk manifest without sending the old value back.
 *
 * @param options - a `client` (ioredis 5/6 Redis or Cluster, node-redis 5+) or a `url`.
 * @returns a {@link RedisStore} with every optional Store ability.
 * @throws {StowageError} INVALID_ARGUMENT for bad options or an unknown client.
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  checkOptionNames('createRedisStore', options, ['client', 'url', 'commandTimeout', 'chunkSize', 'scanCount'] satisfies ReadonlyArray<keyof RedisStoreOptions>)
  const timeout = options.commandTimeout ?? DEFAULT_COMMAND_TIMEOUT
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE
  const scanCount = options.scanCount ?? 500
  if (!(Number.isFinite(timeout) && timeout > 0)) throw invalid(`commandTimeout must be a positive number of ms, got ${String(timeout)}`)
  if (!(Number.isInteger(chunkSize) && chunkSize >= 1024 && chunkSize <= 512 * 1024 * 1024)) throw invalid('chunkSize must be an integer from 1 KiB to 512 MiB')
  if (!(Number.isInteger(scanCount) && scanCount > 0)) throw invalid('scanCount must be a positive integer')
  if ((options.client === undefined) === (options.url === undefined)) throw invalid('createRedisStore needs a client or a url (one of them)')
  if (options.url !== undefined) {
    const { client, lastError } = connect(options.url, timeout)
    return new RedisStoreImpl(ioredisAdapter(client), true, timeout, chunkSize, scanCount, lastError, () => client.disconnect(true))
  }
  const { client } = options
  if (isIoredis(client)) return new RedisStoreImpl(ioredisAdapter(client), false, timeout, chunkSize, scanCount)
  if (isNodeRedis(client)) return new RedisStoreImpl(nodeRedisAdapter(client), false, timeout, chunkSize, scanCount)
  throw invalid('client must be an ioredis Redis or Cluster, or a node-redis client or cluster')
}

/** The first 16 bytes of every chunk manifest: a value that starts with them is always stored as chunks. */
export { MANIFEST_MAGIC }

function connect(url: string, timeout: number) {
  // Loaded on demand, so that a node-redis user never needs ioredis installed.
  let Redis: typeof import('ioredis').Redis
  try {
    ;({ Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis'))
  } catch (e) {
    throw invalid(`the url option makes an ioredis client, and ioredis is not installed: install it, or pass a connected node-redis client as client (${String((e as Error)?.message ?? e).split('\n')[0]})`)
  }
  // Fail commands fast while disconnected (the store's timeout bounds them anyway) and keep reconnecting.
  const client = new Redis(url, { commandTimeout: timeout, maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false })
  // Connection errors reach callers as rejected commands (STORE_ERROR), and the latest one as the
  // cause of a timeout; without a listener ioredis would also print every reconnect attempt.
  let latest: { error: unknown; at: number } | undefined
  client.on('error', (error: unknown) => {
    latest = { error, at: Date.now() }
  })
  // A connection error older than a few timeouts says nothing about the command that timed out now.
  const lastError = () => (latest !== undefined && Date.now() - latest.at < timeout * 5 ? latest.error : undefined)
  return { client, lastError }
}
