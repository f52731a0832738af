import { checkStoreEntry as checkEntry, checkStoreKey as checkKey, StowageError, StowageErrorCode, type Store, type StoreEntry, type StoreSetOptions } from '@stowage/core'
import { createRequire } from 'node:module'
import type { RedisAdapter } from './adapter.js'
import { ioredisAdapter, isIoredis } from './adapter-ioredis.js'
import { isNodeRedis, nodeRedisAdapter } from './adapter-node-redis.js'
import { withDeadline } from './deadline.js'
import { chunkNamer, isChunkName, legacyChunkNamer, type ChunkNamer } from './chunk-names.js'
import { checksum, MANIFEST_MAGIC, newGeneration, readManifest, startsWithMagic, writeManifest, type Manifest } from './chunks.js'
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
// Chunks outlive their manifest a little, so a reader that got the manifest just before it
// expired can still fetch them.
const CHUNK_GRACE = 10_000
// Chunks carry a TTL until their manifest is written: a write that fails midway leaves nothing
// behind for longer than this. A value without TTL has its chunks made persistent afterwards.
const PENDING_CHUNK_TTL = 3_600_000
// Chunks of a replaced or deleted value expire this long after, instead of going at once, so a
// reader that read the old manifest a moment before still finds every chunk (no torn reads).
const REPLACED_CHUNK_TTL = 30_000
// What a manifest may announce: chunks of 1 KiB to 512 MiB (the chunkSize bounds), a value no
// larger than a Uint8Array can be here.
const MIN_CHUNK_SIZE = 1024
const MAX_CHUNK_SIZE = 512 * 1024 * 1024
const MAX_CHUNKED_LENGTH = 2 ** 32
// Timeouts in a row after which a connection of the store's own is dialled again.
const REDIAL_AFTER = 3
// How many chunks go out in one pipeline: bounds the bytes in flight for a huge value.
const CHUNKS_PER_WRITE = 4
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

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

class RedisStoreImpl implements RedisStore {
  readonly name = 'redis'
  private closed = false

  constructor(
    private readonly adapter: RedisAdapter,
    private readonly owned: boolean,
    private readonly timeout: number,
    private readonly chunkSize: number,
    private readonly scanCount: number,
    /** The latest connection error of a connection the store made itself (none for a client it was given). */
    private readonly lastError: () => unknown = () => undefined,
    /** Drops and re-dials a connection the store made itself (none for a client it was given). */
    private readonly redial: (() => void) | undefined = undefined,
  ) {}

  // Timeouts in a row with no answer in between: past REDIAL_AFTER, the connection is presumed dead.
  private silent = 0

  get clientKind(): RedisStore['clientKind'] {
    return this.adapter.kind
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    checkKey(key)
    const bytes = await this.call('GET', (a) => a.get(key))
    return bytes === null ? undefined : this.resolve(key, bytes)
  }

  async getWithTtl(key: string): Promise<{ value: Uint8Array; ttl: number | undefined } | undefined> {
    checkKey(key)
    const [bytes, pttl] = await this.call('GET', (a) => a.getWithPttl(key))
    if (bytes === null) return undefined
    const value = await this.resolve(key, bytes)
    return value === undefined ? undefined : { value, ttl: pttl === -1 ? undefined : Math.max(1, pttl) }
  }

  async set(key: string, value: Uint8Array, options?: StoreSetOptions): Promise<void> {
    checkEntry(key, value, options?.ttl)
    await this.write(key, value, options?.ttl)
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
          out[i] = bytes == null ? undefined : await this.resolve(keys[i] as string, bytes)
        }))
      }),
    )
    return out
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    for (const { key, value, ttl } of entries) checkEntry(key, value, ttl)
    const small = entries.filter((e) => !this.needsChunks(e.value))
    const big = entries.filter((e) => this.needsChunks(e.value))
    await Promise.all([
      ...bySlot(small.map((e) => e.key), this.adapter.isCluster).map(async (group) => {
        const batch = group.map((i) => small[i] as StoreEntry)
        const old = await this.call('SET', (a) => a.setHeadMany(batch.map(({ key, value, ttl }) => ({ key, value, ttl }))))
        await Promise.all(batch.map((e, j) => this.dropChunks(e.key, old[j] ?? null, undefined)))
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
            return this.dropChunks(key, head, undefined)
          }),
        )
      }),
    )
    return removed
  }

  // Chunks are never deleted here: each goes with its manifest (see dropChunks), so no prefix can
  // take away the chunks of a key it does not hold, nor those of a write under way.
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

  // One Redis call, bounded by the command timeout and with its failure typed.
  private async call<T>(what: string, fn: (adapter: RedisAdapter) => Promise<T>): Promise<T> {
    this.open()
    try {
      const result = await withDeadline(fn(this.adapter), this.timeout, what, this.lastError, () => this.timedOut())
      this.silent = 0
      return result
    } catch (e) {
      // ioredis's own commandTimeout (on the store's own connection) may fire first.
      if (e instanceof Error && e.message === 'Command timed out') this.timedOut()
      const connection = this.lastError()
      if (connection !== undefined && !StowageError.isInstance(e)) {
        // The command's own error ("max retries reached") says less than why the connection is down.
        const message = `Redis ${what} failed: ${String((e as Error)?.message ?? e)} (the connection: ${String((connection as Error)?.message ?? connection)})`
        throw new StowageError(StowageErrorCode.STORE_ERROR, message, { cause: connection })
      }
      throw failure(what, e)
    }
  }

  // A connection that stays open but never answers (half-open: the peer or a middlebox dropped it
  // without a FIN) would time out every call forever: after a few timeouts in a row, a connection
  // of the store's own is dropped and dialled again. A client it was given stays the caller's.
  private timedOut(): void {
    if (++this.silent < REDIAL_AFTER || this.redial === undefined) return
    this.silent = 0
    this.redial()
  }

  private needsChunks(value: Uint8Array): boolean {
    return value.length > this.chunkSize || startsWithMagic(value)
  }

  private async write(key: string, value: Uint8Array, ttl: number | undefined): Promise<void> {
    if (!this.needsChunks(value)) {
      const old = await this.call('SET', (a) => a.setHead(key, value, ttl))
      return this.dropChunks(key, old, undefined)
    }
    // Chunks first, under a fresh generation; then the manifest in one SET, so a reader sees the
    // old value or the new one, never a mix; then the old generation's chunks are set to expire.
    const generation = newGeneration()
    const name = chunkNamer(key, generation)
    const count = Math.max(1, Math.ceil(value.length / this.chunkSize))
    const chunkTtl = ttl === undefined ? PENDING_CHUNK_TTL : ttl + CHUNK_GRACE
    for (let first = 0; first < count; first += CHUNKS_PER_WRITE) {
      const batch: Array<{ key: string; value: Uint8Array; ttl: number | undefined }> = []
      for (let i = first; i < Math.min(count, first + CHUNKS_PER_WRITE); i++) {
        batch.push({ key: name(i), value: value.subarray(i * this.chunkSize, (i + 1) * this.chunkSize), ttl: chunkTtl })
      }
      await this.call('SET chunk', (a) => a.setMany(batch))
    }
    const manifest: Manifest = { generation, count, length: value.length, crc: checksum(value) }
    const old = await this.call('SET manifest', (a) => a.setHead(key, writeManifest(manifest), ttl))
    // The manifest now names the chunks: a value without TTL keeps them for good. (Should this
    // fail, the call rejects and the value is gone once the chunks expire: never a torn read.)
    if (ttl === undefined) {
      for (const batch of chunkBatches(manifest, DELETE_BATCH, name)) await this.call('PERSIST chunks', (a) => a.expireMany(batch, undefined))
    }
    await this.dropChunks(key, old, generation)
  }

  // The chunks of a replaced or deleted manifest (`head`, the old value's first bytes) expire a
  // little later: a reader that got the old manifest still finds them all.
  private async dropChunks(key: string, head: Uint8Array | null, keep: string | undefined): Promise<void> {
    if (head === null || !startsWithMagic(head)) return
    const manifest = readManifest(head)
    if (manifest === undefined || manifest.generation === keep || !plausible(manifest)) return
    // Chunks of either naming: a manifest does not say which (chunk-names.ts).
    for (const namer of [chunkNamer, legacyChunkNamer]) {
      const name = namer(key, manifest.generation)
      for (const batch of chunkBatches(manifest, DELETE_BATCH, name)) await this.expireChunks(batch, REPLACED_CHUNK_TTL)
    }
  }

  // A plain value as it is; a manifest replaced by the value its chunks hold.
  private async resolve(key: string, bytes: Uint8Array, retried = false): Promise<Uint8Array | undefined> {
    if (!startsWithMagic(bytes)) return bytes
    const manifest = readManifest(bytes)
    if (manifest === undefined || !plausible(manifest)) {
      throw new StowageError(StowageErrorCode.CORRUPT, `the chunk manifest under ${key} is damaged (${manifest === undefined ? 'not 40 bytes' : `${manifest.count} chunks for ${manifest.length} bytes`})`)
    }
    // Chunks named by this version, else by an older one (chunk-names.ts): data written before stays readable.
    const parts = (await this.readChunks(key, manifest, chunkNamer(key, manifest.generation))) ?? (await this.readChunks(key, manifest, legacyChunkNamer(key, manifest.generation)))
    if (parts === undefined) {
      // Chunks gone: the manifest was replaced long enough ago that they expired, or expired with
      // it. A newer manifest may be there: read once more.
      if (retried) return undefined
      const again = await this.call('GET', (a) => a.get(key))
      return again === null ? undefined : this.resolve(key, again, true)
    }
    const length = parts.reduce((n, p) => n + p.length, 0)
    if (length !== manifest.length) throw new StowageError(StowageErrorCode.CORRUPT, `the chunks under ${key} hold ${length} bytes, their manifest says ${manifest.length}`)
    const value = concat(parts, manifest.length)
    if (checksum(value) !== manifest.crc) throw new StowageError(StowageErrorCode.CORRUPT, `the chunks under ${key} do not match their manifest's CRC`)
    return value
  }

  // Chunks of one value share a slot, except legacy-named ones of keys such as '}a' (chunk-names.ts):
  // on a cluster they are grouped by slot, one MGET or pipeline per group.
  private async getChunks(names: readonly string[]): Promise<Array<Uint8Array | null>> {
    const out = new Array<Uint8Array | null>(names.length)
    await Promise.all(
      bySlot(names, this.adapter.isCluster).map(async (group) => {
        const values = await this.call('MGET chunks', (a) => a.mget(group.map((i) => names[i] as string)))
        group.forEach((i, j) => (out[i] = values[j] ?? null))
      }),
    )
    return out
  }

  private async expireChunks(names: readonly string[], ms: number | undefined): Promise<void> {
    await Promise.all(bySlot(names, this.adapter.isCluster).map((group) => this.call('PEXPIRE chunks', (a) => a.expireMany(group.map((i) => names[i] as string), ms))))
  }

  private async readChunks(key: string, manifest: Manifest, name: ChunkNamer): Promise<Uint8Array[] | undefined> {
    const parts: Uint8Array[] = []
    let length = 0
    for (const batch of chunkBatches(manifest, CHUNKS_PER_WRITE, name)) {
      const values = await this.getChunks(batch)
      for (const value of values) {
        if (value === null) return undefined
        length += value.length
        if (length > manifest.length) throw new StowageError(StowageErrorCode.CORRUPT, `the chunks under ${key} hold more than the ${manifest.length} bytes their manifest says`)
        parts.push(value)
      }
    }
    return parts
  }
}

// Whether a manifest's count and length can be true: chunks of 1 KiB to 512 MiB, and a length a
// reader can hold. A damaged manifest announcing 2^32 − 1 chunks is refused before any is asked for.
function plausible({ count, length }: Manifest): boolean {
  if (count < 1 || length > MAX_CHUNKED_LENGTH) return false
  return count <= Math.max(1, Math.ceil(length / MIN_CHUNK_SIZE)) && count >= Math.ceil(length / MAX_CHUNK_SIZE)
}

// A manifest's chunk keys, `size` at a time (never all at once: a value may have many chunks).
function* chunkBatches(manifest: Manifest, size: number, name: ChunkNamer): Generator<string[]> {
  for (let first = 0; first < manifest.count; first += size) {
    const batch: string[] = []
    for (let i = first; i < Math.min(manifest.count, first + size); i++) batch.push(name(i))
    yield batch
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
