// The per-query form: TanStack's own experimental_createQueryPersister (it checks `buster` and
// `maxAge`, restores on first use, refetches when stale) over a storage whose values are Stowage
// envelopes in a Store, one entry per query.
import { checkOptionNames, StowageError, StowageErrorCode, type Codec, type CodecOptions, type Store } from '@stowage/core'
import type { AsyncStorage, PersistedQuery } from '@tanstack/query-persist-client-core'
import { deleteMany, getMany } from '../shared/batch.js'
import { QUERY_CODEC_OPTIONS, resolveCodec } from '../shared/resolve-codec.js'
import { resolveStore } from '../shared/resolve-store.js'
import { writeBatches } from '../shared/write-batches.js'
import { storableState } from './storable-state.js'

/** TanStack's default key prefix of the per-query persister (`PERSISTER_KEY_PREFIX`). */
export const DEFAULT_QUERY_PREFIX = 'tanstack-query'

/** Options of {@link createQueryStorage}. Every field is optional. */
export interface QueryStorageOptions {
  /** Where the envelopes go. Defaults to an `@stowage/idb` store over the database `dbName`. */
  readonly store?: Store
  /** The IndexedDB database of the store created when `store` is not given. Defaults to `'stowage-persist'`. */
  readonly dbName?: string
  /** The persister's key `prefix`, so that `entries()` lists only its own keys. Defaults to `'tanstack-query'`. */
  readonly prefix?: string
  /** A time to live for every entry, in ms, so that the store itself drops what TanStack would discard (pass the persister's `maxAge`). Defaults to none. */
  readonly ttl?: number
  /**
   * The codec or codec options the entries are written with (give the serializer the same):
   * `entries()` reads each record to list only this prefix's queries. Defaults to {@link QUERY_CODEC_OPTIONS}.
   */
  readonly codec?: Codec | CodecOptions
}

/** A TanStack `AsyncStorage` of envelope bytes, with the {@link Store} under it. */
export interface QueryStorage extends Required<AsyncStorage<Uint8Array>> {
  /** The store the entries live in. */
  readonly store: Store
  /**
   * Deletes every entry of this prefix's queries, and every record under the prefix that no
   * envelope reader can read; leaves another's records (another prefix's queries, the
   * whole-client persister's).
   */
  removeAll(): Promise<void>
}

// Decode errors that mean the bytes are damaged, whoever wrote them: TanStack removes such an entry.
const DAMAGED: ReadonlySet<string> = new Set([StowageErrorCode.BAD_MAGIC, StowageErrorCode.TRUNCATED, StowageErrorCode.CHECKSUM_MISMATCH, StowageErrorCode.CORRUPT])

/**
 * A record found under `prefix` (which ends with '-'): `'own'` when it holds a query whose
 * `queryHash` is the rest of its key (what TanStack's per-query persister writes there);
 * `'damaged'` when its bytes are damaged; `'unreadable'` when this codec cannot read it (a newer
 * format, a dictionary it lacks); `'other'` when it is another's: a query of a longer prefix
 * ('tq-bob-' lists 'tq-bob-smith-…'), or the whole-client persister's records ('tanstack-query-'
 * lists 'tanstack-query-client:…').
 */
function classify(codec: Codec, prefix: string, key: string, bytes: Uint8Array): { kind: 'own'; query: PersistedQuery } | { kind: 'damaged' | 'unreadable' | 'other' } {
  let value: unknown
  try {
    value = codec.decode<unknown>(bytes)
  } catch (e) {
    return { kind: StowageError.isInstance(e) && DAMAGED.has(e.code) ? 'damaged' : 'unreadable' }
  }
  const query = value as Partial<PersistedQuery> | null
  const own = typeof query === 'object' && query !== null && query.queryHash === key.slice(prefix.length) && typeof query.state === 'object' && query.state !== null
  return own ? { kind: 'own', query: query as PersistedQuery } : { kind: 'other' }
}

/**
 * A TanStack Query `AsyncStorage` whose values are bytes (Stowage envelopes), for
 * `experimental_createQueryPersister` with {@link createQuerySerializer}'s `serialize` and
 * `deserialize`. Reads and writes one store entry per query (the writes asked for in one task land
 * in one batch: `setItem` resolves once its batch has; a read, delete or listing waits for the
 * writes asked for before it); `entries()` (for `persisterGc` and `restoreQueries`) reads the
 * prefix's entries in one batch.
 *
 * @param options - see {@link QueryStorageOptions}.
 * @returns a {@link QueryStorage}.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option; its methods reject with the store's errors (`STORE_ERROR`, `LIMIT_EXCEEDED` when even evicting leaves no room).
 */
export function createQueryStorage(options: QueryStorageOptions = {}): QueryStorage {
  checkOptionNames('createQueryStorage', options, ['store', 'dbName', 'prefix', 'ttl', 'codec'] satisfies ReadonlyArray<keyof QueryStorageOptions>)
  return queryStorage(options, new WeakMap())
}

/**
 * {@link createQueryStorage}, remembering in `read` the query each record `entries()` lists was
 * decoded to, so that a serializer made with the same map does not decode it again.
 */
export function queryStorage(options: QueryStorageOptions, read: WeakMap<Uint8Array, PersistedQuery>): QueryStorage {
  const store = resolveStore(options.store, options.dbName)
  const codec = resolveCodec(options.codec, QUERY_CODEC_OPTIONS)
  const prefix = `${options.prefix ?? DEFAULT_QUERY_PREFIX}-`
  const ttl = options.ttl
  const writes = writeBatches(store)
  const listed = async () => {
    const keys: string[] = []
    if (store.keys) for await (const key of store.keys(prefix)) keys.push(key)
    const values = await getMany(store, keys)
    return keys.flatMap((key, i) => (values[i] === undefined ? [] : [{ key, bytes: values[i] as Uint8Array, found: classify(codec, prefix, key, values[i] as Uint8Array) }]))
  }
  return {
    store,
    // Reads, deletes and listings come after the writes asked for before them, still in a batch:
    // a removal that lists the prefix before such a write lands would leave it behind.
    getItem: async (key) => {
      await writes.settled(key)
      return (await store.get(key)) ?? null
    },
    // TanStack writes each query on its own, a burst of them at once after a fetch: those asked for
    // in one task go in one batch (one IndexedDB transaction).
    setItem: (key, value) => writes.set({ key, value, ttl }),
    removeItem: async (key) => {
      await writes.settled(key)
      await store.delete(key)
    },
    // This prefix's queries, and damaged records for TanStack to remove; never another's records,
    // which TanStack would read as queries (and remove, or fail on).
    entries: async () => {
      await writes.settled()
      return (await listed()).flatMap(({ key, bytes, found }) => {
        if (found.kind === 'own') read.set(bytes, found.query)
        return found.kind === 'own' || found.kind === 'damaged' ? [[key, bytes] as [string, Uint8Array]] : []
      })
    },
    removeAll: async () => {
      await writes.settled()
      const records = await listed()
      await deleteMany(
        store,
        records.filter(({ found }) => found.kind !== 'other').map(({ key }) => key),
      )
    },
  }
}

/** `serialize` and `deserialize` for `experimental_createQueryPersister` over a {@link QueryStorage}. */
export interface QuerySerializer {
  /** A persisted query as envelope bytes; its `error` and `fetchFailureReason` are not kept. */
  serialize(persistedQuery: PersistedQuery): Uint8Array
  /** Envelope bytes back to the persisted query (TanStack drops the entry when this throws). */
  deserialize(bytes: Uint8Array): PersistedQuery
}

/**
 * Envelope `serialize`/`deserialize` for `experimental_createQueryPersister`: `Date`, `Map`, `Set`,
 * `BigInt` and typed arrays in query data come back as they were, with no JSON round trip.
 *
 * @param codec - a codec or codec options. Defaults to {@link QUERY_CODEC_OPTIONS}.
 * @returns a {@link QuerySerializer}.
 * @throws {StowageError} INVALID_ARGUMENT for bad codec options; `serialize` throws UNSUPPORTED_TYPE or CYCLE for data no envelope holds, `deserialize` the decoder's codes for damaged bytes.
 */
export function createQuerySerializer(codec?: Codec | CodecOptions): QuerySerializer {
  return querySerializer(codec, new WeakMap())
}

/** {@link createQuerySerializer}, taking from `read` a query a {@link queryStorage} listing already decoded. */
export function querySerializer(codec: Codec | CodecOptions | undefined, read: WeakMap<Uint8Array, PersistedQuery>): QuerySerializer {
  const c = resolveCodec(codec, QUERY_CODEC_OPTIONS)
  return {
    serialize: (persistedQuery) => c.encode({ ...persistedQuery, state: storableState(persistedQuery.state) }),
    deserialize: (bytes) => read.get(bytes) ?? c.decode<PersistedQuery>(bytes),
  }
}
