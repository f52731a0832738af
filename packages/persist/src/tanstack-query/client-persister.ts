// The whole-client form (`persistQueryClient`, `PersistQueryClientProvider`): TanStack hands the
// persister the whole dehydrated client on every cache change. This persister writes only the
// queries whose state changed since its last write (one envelope per query, in batches cut into
// short slices of main-thread time) and a small index: the save time, the buster, the query
// hashes and the dehydrated mutations. TanStack checks `buster` and `maxAge` against the index.
//
// Keys, under `key` (default 'tanstack-query-client'):
//   `${key}:index`         the index
//   `${key}:q:${hash}`     one dehydrated query
import { StowageError, StowageErrorCode, type Codec, type CodecOptions, type Store, type StoreEntry } from '@stowage/core'
import type { DehydratedState, QueryState } from '@tanstack/query-core'
import type { PersistedClient, Persister } from '@tanstack/query-persist-client-core'
import { deleteMany, getMany, setMany } from '../shared/batch.js'
import { resolveCodec } from '../shared/resolve-codec.js'
import { resolveStore } from '../shared/resolve-store.js'
import { DEFAULT_SLICE_MS, yieldToMain } from '../shared/yield-to-main.js'
import { storableState } from './storable-state.js'

/** Default `key` of {@link createStowageClientPersister}. */
export const DEFAULT_CLIENT_KEY = 'tanstack-query-client'
/** Default `throttleTime` of {@link createStowageClientPersister}, as TanStack's async-storage persister: 1000 ms. */
export const DEFAULT_THROTTLE_TIME = 1000

/** Options of {@link createStowageClientPersister}. Every field is optional. */
export interface StowageClientPersisterOptions {
  /** Where the envelopes go. Defaults to an `@stowage/idb` store over the database `dbName`. */
  readonly store?: Store
  /** The IndexedDB database of the store created when `store` is not given. Defaults to `'stowage-persist'`. */
  readonly dbName?: string
  /** The key under which the index and the queries are stored. Defaults to `'tanstack-query-client'`. */
  readonly key?: string
  /** A codec or codec options for the envelopes. Defaults to {@link PERSIST_CODEC_OPTIONS}. */
  readonly codec?: Codec | CodecOptions
  /** Milliseconds to wait after a change before writing; changes meanwhile are written together. 0 writes on the next task. Defaults to 1000. */
  readonly throttleTime?: number
  /** Longest run of encoding before the persister lets the page run (ms). Defaults to 8. */
  readonly sliceMs?: number
  /** Receives a failed write (a {@link StowageError}: the store's `STORE_ERROR` or `LIMIT_EXCEEDED`, the codec's `UNSUPPORTED_TYPE` naming the query). Defaults to `console.error`. */
  readonly onError?: (error: StowageError) => void
}

/** A TanStack Query {@link Persister} that writes per query, with a way to wait for pending writes. */
export interface StowageClientPersister extends Persister {
  /** The store the index and the queries live in. */
  readonly store: Store
  /** Writes what is waiting for `throttleTime` now; resolves when every pending write has ended. */
  flush(): Promise<void>
}

// Queries read per IndexedDB batch on restore.
const RESTORE_CHUNK = 250

type DehydratedQuery = DehydratedState['queries'][number]

/** What a write compares: a query is written again only when one of these changed. */
interface Written {
  readonly data: unknown
  readonly dataUpdatedAt: number
  readonly errorUpdatedAt: number
  readonly status: QueryState['status']
  readonly isInvalidated: boolean
}

interface Index {
  readonly timestamp: number
  readonly buster: string
  readonly hashes: readonly string[]
  readonly mutations: DehydratedState['mutations']
}

const fingerprint = ({ data, dataUpdatedAt, errorUpdatedAt, status, isInvalidated }: QueryState): Written => ({ data, dataUpdatedAt, errorUpdatedAt, status, isInvalidated })
const same = (a: Written, b: QueryState) =>
  a.data === b.data && a.dataUpdatedAt === b.dataUpdatedAt && a.errorUpdatedAt === b.errorUpdatedAt && a.status === b.status && a.isInvalidated === b.isInvalidated

function toError(e: unknown, what: string): StowageError {
  return StowageError.isInstance(e) ? e : new StowageError(StowageErrorCode.STORE_ERROR, `${what} failed: ${String((e as Error)?.message ?? e)}`, { cause: e })
}

class ClientPersister implements StowageClientPersister {
  private readonly written = new Map<string, Written>()
  private latest: PersistedClient | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> | undefined
  private readonly waiters: Array<() => void> = []
  /** Hashes of an index written before this persister knew it (no restore in this page): deleted unless still in the cache. */
  private orphans: Set<string> | undefined

  constructor(
    readonly store: Store,
    private readonly codec: Codec,
    private readonly key: string,
    private readonly throttleTime: number,
    private readonly sliceMs: number,
    private readonly onError: (error: StowageError) => void,
  ) {}

  private get indexKey(): string {
    return `${this.key}:index`
  }

  private queryKey(hash: string): string {
    return `${this.key}:q:${hash}`
  }

  persistClient = (client: PersistedClient): Promise<void> => {
    this.latest = client
    const done = new Promise<void>((resolve) => this.waiters.push(resolve))
    if (this.timer === undefined && this.running === undefined) this.schedule()
    return done
  }

  restoreClient = async (): Promise<PersistedClient | undefined> => {
    await this.flush()
    const indexBytes = await this.store.get(this.indexKey)
    if (indexBytes === undefined) return undefined
    const index = this.codec.decode<Index>(indexBytes)
    const queries: DehydratedQuery[] = []
    const damaged: string[] = []
    this.written.clear()
    this.orphans = new Set()
    // Read in chunks, the next one requested before this one is decoded: IndexedDB reads while
    // the page decodes.
    const chunks: string[][] = []
    for (let i = 0; i < index.hashes.length; i += RESTORE_CHUNK) chunks.push(index.hashes.slice(i, i + RESTORE_CHUNK))
    let next = chunks.length > 0 ? this.readChunk(chunks[0]!) : undefined
    for (let c = 0; c < chunks.length; c++) {
      const values = await next!
      next = c + 1 < chunks.length ? this.readChunk(chunks[c + 1]!) : undefined
      const hashes = chunks[c]!
      for (let i = 0; i < values.length; i++) {
        const bytes = values[i]
        if (bytes === undefined) continue
        try {
          const query = this.codec.decode<DehydratedQuery>(bytes)
          queries.push(query)
          // hydrate() keeps the very `data` object: an unchanged query is not written again.
          this.written.set(query.queryHash, fingerprint(query.state))
        } catch {
          damaged.push(this.queryKey(hashes[i]!))
        }
      }
    }
    if (damaged.length > 0) await deleteMany(this.store, damaged)
    return { timestamp: index.timestamp, buster: index.buster, clientState: { queries, mutations: index.mutations } }
  }

  private readChunk(hashes: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    return getMany(
      this.store,
      hashes.map((hash) => this.queryKey(hash)),
    )
  }

  removeClient = async (): Promise<void> => {
    clearTimeout(this.timer)
    this.timer = undefined
    this.latest = undefined
    await this.running
    this.written.clear()
    this.orphans = new Set()
    if (this.store.clear) {
      await this.store.clear(`${this.key}:`)
      return
    }
    const indexBytes = await this.store.get(this.indexKey)
    const hashes = indexBytes === undefined ? [] : this.codec.decode<Index>(indexBytes).hashes
    await deleteMany(this.store, [...hashes.map((h) => this.queryKey(h)), this.indexKey])
  }

  flush = async (): Promise<void> => {
    while (this.timer !== undefined || this.running !== undefined) {
      if (this.timer !== undefined && this.running === undefined) {
        clearTimeout(this.timer)
        this.timer = undefined
        this.start()
      }
      await this.running
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.start()
    }, this.throttleTime)
  }

  private start(): void {
    const client = this.latest
    this.latest = undefined
    const waiters = this.waiters.splice(0)
    if (client === undefined) {
      waiters.forEach((resolve) => resolve())
      return
    }
    this.running = this.write(client)
      .catch((e: unknown) => this.onError(toError(e, 'persisting the query client')))
      .finally(() => {
        this.running = undefined
        waiters.forEach((resolve) => resolve())
        // Changes that came while writing: write them after the throttle time.
        if (this.latest !== undefined) this.schedule()
      })
  }

  private async write(client: PersistedClient): Promise<void> {
    if (this.orphans === undefined) {
      const indexBytes = await this.store.get(this.indexKey)
      let hashes: readonly string[] = []
      try {
        if (indexBytes !== undefined) hashes = this.codec.decode<Index>(indexBytes).hashes
      } catch {
        // A damaged index is overwritten below; its queries cannot be found any more.
      }
      this.orphans = new Set(hashes.filter((hash) => !this.written.has(hash)))
    }
    const { queries, mutations } = client.clientState
    const hashes: string[] = []
    let batch: StoreEntry[] = []
    let pending: Array<[string, Written]> = []
    let sliceStart = performance.now()
    const commit = async () => {
      await setMany(this.store, batch)
      for (const [hash, w] of pending) this.written.set(hash, w)
      batch = []
      pending = []
    }
    for (const query of queries) {
      const old = this.written.get(query.queryHash)
      if (old !== undefined && same(old, query.state)) {
        hashes.push(query.queryHash)
        continue
      }
      const { promise: _promise, ...rest } = query
      let bytes: Uint8Array
      try {
        bytes = this.codec.encode({ ...rest, state: storableState(query.state) })
      } catch (e) {
        this.onError(new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `query ${query.queryHash} was not persisted: ${(e as Error).message}`, { cause: e }))
        if (old !== undefined) hashes.push(query.queryHash) // its last stored state stays
        continue
      }
      hashes.push(query.queryHash)
      batch.push({ key: this.queryKey(query.queryHash), value: bytes })
      pending.push([query.queryHash, fingerprint(query.state)])
      if (performance.now() - sliceStart >= this.sliceMs) {
        await commit()
        await yieldToMain()
        sliceStart = performance.now()
      }
    }
    const kept = new Set(hashes)
    const removed = [...this.written.keys(), ...this.orphans].filter((hash) => !kept.has(hash))
    this.orphans.clear()
    batch.push({ key: this.indexKey, value: this.encodeIndex({ timestamp: client.timestamp, buster: client.buster, hashes, mutations }) })
    await commit()
    if (removed.length > 0) {
      await deleteMany(
        this.store,
        removed.map((hash) => this.queryKey(hash)),
      )
      for (const hash of removed) this.written.delete(hash)
    }
  }

  private encodeIndex(index: Index): Uint8Array {
    try {
      return this.codec.encode(index)
    } catch (e) {
      // A paused mutation's variables may hold what no envelope can; keep the queries.
      this.onError(new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `the dehydrated mutations were not persisted: ${(e as Error).message}`, { cause: e }))
      return this.codec.encode({ ...index, mutations: [] })
    }
  }
}

/**
 * A TanStack Query {@link Persister} for `persistQueryClient` / `PersistQueryClientProvider` that
 * stores each query as a Stowage envelope in its own store entry (IndexedDB by default) and, on
 * every save, writes only the queries that changed since its last write, plus a small index. The
 * encoding runs in slices of `sliceMs`, so a save never holds the main thread long. TanStack checks
 * `buster` and `maxAge` on restore against the index. Quota: the store's job (`@stowage/idb` evicts
 * least recently used entries, or keeps its `maxBytes` budget); a write that still fails reaches
 * `onError`.
 *
 * @param options - see {@link StowageClientPersisterOptions}.
 * @returns a {@link StowageClientPersister}. `persistClient` resolves once the save is written (or
 * failed: failures go to `onError`, never to TanStack's subscriber, which does not catch them).
 * `restoreClient` rejects with the decoder's codes when the index is damaged (TanStack then removes
 * the persisted client); a damaged query is left out and deleted.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export function createStowageClientPersister(options: StowageClientPersisterOptions = {}): StowageClientPersister {
  const { key = DEFAULT_CLIENT_KEY, throttleTime = DEFAULT_THROTTLE_TIME, sliceMs = DEFAULT_SLICE_MS } = options
  if (typeof key !== 'string' || key === '') throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'key must be a non-empty string')
  if (!(Number.isFinite(throttleTime) && throttleTime >= 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'throttleTime must be a number of ms ≥ 0')
  if (!(Number.isFinite(sliceMs) && sliceMs > 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'sliceMs must be a positive number of ms')
  const onError = options.onError ?? ((error: StowageError) => console.error(error))
  return new ClientPersister(resolveStore(options.store, options.dbName), resolveCodec(options.codec), key, throttleTime, sliceMs, onError)
}
