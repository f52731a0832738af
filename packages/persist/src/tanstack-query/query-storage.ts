// The per-query form: TanStack's own experimental_createQueryPersister (it checks `buster` and
// `maxAge`, restores on first use, refetches when stale) over a storage whose values are Stowage
// envelopes in a Store, one entry per query.
import type { Codec, CodecOptions, Store } from '@stowage/core'
import type { AsyncStorage, PersistedQuery } from '@tanstack/query-persist-client-core'
import { getMany } from '../shared/batch.js'
import { resolveCodec } from '../shared/resolve-codec.js'
import { resolveStore } from '../shared/resolve-store.js'
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
}

/** A TanStack `AsyncStorage` of envelope bytes, with the {@link Store} under it. */
export interface QueryStorage extends Required<AsyncStorage<Uint8Array>> {
  /** The store the entries live in. */
  readonly store: Store
}

/**
 * A TanStack Query `AsyncStorage` whose values are bytes (Stowage envelopes), for
 * `experimental_createQueryPersister` with {@link createQuerySerializer}'s `serialize` and
 * `deserialize`. Reads and writes one store entry per query; `entries()` (for `persisterGc` and
 * `restoreQueries`) reads the prefix's entries in one batch.
 *
 * @param options - see {@link QueryStorageOptions}.
 * @returns a {@link QueryStorage}.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option; its methods reject with the store's errors (`STORE_ERROR`, `LIMIT_EXCEEDED` when even evicting leaves no room).
 */
export function createQueryStorage(options: QueryStorageOptions = {}): QueryStorage {
  const store = resolveStore(options.store, options.dbName)
  const prefix = `${options.prefix ?? DEFAULT_QUERY_PREFIX}-`
  const set = options.ttl === undefined ? undefined : { ttl: options.ttl }
  return {
    store,
    getItem: async (key) => (await store.get(key)) ?? null,
    setItem: (key, value) => store.set(key, value, set),
    removeItem: async (key) => {
      await store.delete(key)
    },
    entries: async () => {
      const keys: string[] = []
      if (store.keys) for await (const key of store.keys(prefix)) keys.push(key)
      const values = await getMany(store, keys)
      return keys.flatMap((key, i) => (values[i] === undefined ? [] : [[key, values[i]] as [string, Uint8Array]]))
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
 * @param codec - a codec or codec options. Defaults to {@link PERSIST_CODEC_OPTIONS}.
 * @returns a {@link QuerySerializer}.
 * @throws {StowageError} INVALID_ARGUMENT for bad codec options; `serialize` throws UNSUPPORTED_TYPE or CYCLE for data no envelope holds, `deserialize` the decoder's codes for damaged bytes.
 */
export function createQuerySerializer(codec?: Codec | CodecOptions): QuerySerializer {
  const c = resolveCodec(codec)
  return {
    serialize: (persistedQuery) => c.encode({ ...persistedQuery, state: storableState(persistedQuery.state) }),
    deserialize: (bytes) => c.decode<PersistedQuery>(bytes),
  }
}
