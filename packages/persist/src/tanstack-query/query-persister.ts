import { checkOptionNames, StowageError, StowageErrorCode, type Codec, type CodecOptions, type Store } from '@stowage/core'
import { matchQuery, type Query, type QueryClient, type QueryFilters } from '@tanstack/query-core'
import { experimental_createQueryPersister, type PersistedQuery } from '@tanstack/query-persist-client-core'
import { deleteMany } from '../shared/batch.js'
import { removalNotices } from '../shared/removal-notices.js'
import { noticeName } from '../shared/resolve-store.js'
import { DEFAULT_SLICE_MS } from '../shared/yield-to-main.js'
import { watchManualUpdates, type ManualUpdatesWatcher } from './manual-updates.js'
import { DEFAULT_QUERY_PREFIX, querySerializer, queryStorage } from './query-storage.js'

/** How long this page remembers the keys it wrote, for a removal told late (ms). */
const RECENT_MS = 10_000

/** TanStack's default `maxAge` of persisted queries: 24 hours. */
export const DEFAULT_MAX_AGE = 24 * 60 * 60 * 1000

/** Options of {@link createStowageQueryPersister}. Every field is optional. */
export interface StowageQueryPersisterOptions {
  /** Where the envelopes go. Defaults to an `@stowage/idb` store over the database `dbName`. */
  readonly store?: Store
  /** The IndexedDB database of the store created when `store` is not given. Defaults to `'stowage-persist'`. */
  readonly dbName?: string
  /** A codec or codec options for the envelopes. Defaults to {@link PERSIST_CODEC_OPTIONS}. */
  readonly codec?: Codec | CodecOptions
  /** TanStack's `buster`: entries saved with another one are discarded. Defaults to `''`. */
  readonly buster?: string
  /** TanStack's `maxAge` in ms: older entries are discarded; the store also drops them after that long. Defaults to 24 hours. */
  readonly maxAge?: number
  /** TanStack's key `prefix`. Defaults to `'tanstack-query'`. */
  readonly prefix?: string
  /** TanStack's `refetchOnRestore`. Defaults to `true` (refetch when the restored data is stale). */
  readonly refetchOnRestore?: boolean | 'always'
  /** TanStack's `filters`: which queries are persisted. Defaults to all that use the persister. */
  readonly filters?: QueryFilters
  /** Longest run of encoding before `persistManualUpdates` lets the page run (ms). Defaults to 8. */
  readonly sliceMs?: number
}

/** What `experimental_createQueryPersister` returns, plus the store and a way to persist `setQueryData`. */
export type StowageQueryPersister = ReturnType<typeof experimental_createQueryPersister<Uint8Array>> & {
  /** The store the entries live in. */
  readonly store: Store
  /**
   * Persists every `setQueryData` of the queries that use this persister (TanStack's per-query
   * persister only writes after a `queryFn` ran). `setQueryData` itself only notes the query: its
   * latest state is encoded afterwards, in the background, in slices of `sliceMs`, and written in
   * batches.
   * @param queryClient - the client to watch.
   * @param onError - receives a failed write (a {@link StowageError} from the store or the codec). Defaults to ignoring it, as TanStack ignores its own failed writes.
   * @returns a function that stops watching (what was noted before it is still written, unless `removeClient` drops it).
   */
  persistManualUpdates(queryClient: QueryClient, onError?: (error: unknown) => void): () => void
  /**
   * Deletes every persisted query of this persister (a sign-out; `signOut` from `@stowage/http`
   * calls it): drops the `setQueryData` changes `persistManualUpdates` noted and has not written,
   * waits for a write under way, then deletes this prefix's entries (and records under it no
   * codec can read), never another prefix's or the whole-client persister's. A write that lands
   * after a removal began is deleted once it lands. The other open pages persisting this prefix
   * are told at once (a BroadcastChannel) and drop the writes of what they began before it.
   */
  removeClient(): Promise<void>
}

/**
 * TanStack Query's per-query persister (`experimental_createQueryPersister`) storing each query as
 * a Stowage envelope in its own store entry (IndexedDB by default): pass its `persisterFn` as a
 * query's `persister` or in `defaultOptions.queries`. TanStack itself checks `buster` and `maxAge`;
 * the store drops entries older than `maxAge` on its own too, and handles the browser's quota
 * (evicting least recently used entries, or its `maxBytes` budget).
 *
 * @param options - see {@link StowageQueryPersisterOptions}.
 * @returns a {@link StowageQueryPersister}.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export function createStowageQueryPersister(options: StowageQueryPersisterOptions = {}): StowageQueryPersister {
  checkOptionNames('createStowageQueryPersister', options, ['store', 'dbName', 'codec', 'buster', 'maxAge', 'prefix', 'refetchOnRestore', 'filters', 'sliceMs'] satisfies ReadonlyArray<keyof StowageQueryPersisterOptions>)
  const maxAge = options.maxAge ?? DEFAULT_MAX_AGE
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS
  if (!(Number.isFinite(sliceMs) && sliceMs > 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'sliceMs must be a positive number of ms')
  const prefix = options.prefix ?? DEFAULT_QUERY_PREFIX
  const buster = options.buster ?? ''
  const ttl = Number.isFinite(maxAge) ? maxAge : undefined
  // What entries() decoded to check a record is this prefix's query, handed to deserialize as it is.
  const read = new WeakMap<Uint8Array, PersistedQuery>()
  const storage = queryStorage({ store: options.store, dbName: options.dbName, prefix, ttl, codec: options.codec }, read)
  const { serialize, deserialize } = querySerializer(options.codec, read)
  const watchers = new Set<ManualUpdatesWatcher>()
  // A sign-out's removal against writes still to come. Removals begun, and running: a write asked
  // for during one is dropped, and so is the write that follows a fetch begun before one (the
  // signed-out user's answer, however late it comes).
  let removals = 0
  let removing = 0
  // Fetches that ended and whose write TanStack has yet to make (in a callback it schedules, which a
  // background tab runs up to a second later), by hash and Query, with the `removals` count each
  // began at: the write is dropped when a removal began since its fetch did, however late the
  // answer or the write comes, and no other write of the hash (another Query's: the next user's
  // fetch of the same key).
  const fetched = new Map<string, Map<Query, number[]>>()
  // The `removals` count each answer's fetch began at, by the state it put in its Query, once a
  // write took it from `fetched`: the app's own persistQuery or persistQueryByKey of that state may
  // come first, and TanStack's scheduled write of it is judged all the same (by then a removal may
  // have begun that had not when the app wrote).
  const begunOf = new WeakMap<object, number>()
  const late = new WeakSet<Uint8Array>()
  // This page's writes of the last RECENT_MS, by key, with when each landed (oldest first).
  const landed = new Map<string, number>()
  const noteLanded = (keys: readonly string[]) => {
    const now = Date.now()
    for (const key of keys) landed.delete(key), landed.set(key, now)
    for (const [key, at] of landed) {
      if (at >= now - RECENT_MS) break
      landed.delete(key)
    }
  }
  // A removal of this prefix by another page (its sign-out, told at once) counts here as a removal
  // begun: this page, which may hold the same user's queries, drops the writes this one would. The
  // notice may come after writes of this page that landed after that page's delete, so what this
  // page wrote lately goes too (what landed before that delete, it deleted anyway).
  const notices = removalNotices(noticeName('stowage-persist-queries', prefix, options), () => {
    removals++
    for (const watcher of watchers) void watcher.discard()
    const lately = [...landed.keys()]
    landed.clear()
    void deleteMany(storage.store, lately).catch(() => {})
  })
  const persister = experimental_createQueryPersister<Uint8Array>({
    storage: {
      ...storage,
      setItem: async (key, value) => {
        if (late.has(value) || removing > 0) return
        const begun = removals
        await storage.setItem(key, value)
        noteLanded([key])
        // A removal began while the write was under way: it may have landed after the removal's
        // delete, so it goes too (and with it a next user's write of the key that landed between
        // them: a miss, never another user's query).
        if (begun !== removals) await storage.removeItem(key)
      },
    },
    serialize: (persistedQuery) => {
      const { state, queryHash } = persistedQuery
      const queries = begunOf.has(state) ? undefined : fetched.get(queryHash)
      for (const [query, begun] of queries ?? []) {
        if (query.state !== state) continue
        begunOf.set(state, begun.shift()!)
        if (begun.length === 0) queries!.delete(query)
        if (queries!.size === 0) fetched.delete(queryHash)
        break
      }
      const dropped = begunOf.has(state) && begunOf.get(state) !== removals
      const bytes = serialize(persistedQuery)
      if (dropped) late.add(bytes)
      return bytes
    },
    deserialize,
    maxAge,
    buster,
    prefix,
    refetchOnRestore: options.refetchOnRestore ?? true,
    filters: options.filters,
  })
  const keeps = (query: Query) => !options.filters || matchQuery(options.filters, query)
  const persisterFn: typeof persister.persisterFn = (queryFn, ctx, query) => {
    const begun = removals
    // Whether TanStack writes the query after this fetch: decided as it decides, when it begins.
    const written = keeps(query)
    const watched = async (context: typeof ctx) => {
      const data = await queryFn(context)
      // TanStack writes the query next, in a callback it schedules: judged when it writes.
      if (written) {
        const queries = fetched.get(query.queryHash) ?? new Map<Query, number[]>()
        fetched.set(query.queryHash, queries.set(query, [...(queries.get(query) ?? []), begun]))
      }
      return data
    }
    return persister.persisterFn(watched, ctx, query)
  }
  return {
    ...persister,
    persisterFn,
    store: storage.store,
    async removeClient() {
      removals++
      removing++
      notices.tell(String(removals))
      try {
        await Promise.all([...watchers].map((watcher) => watcher.discard()))
        await storage.removeAll()
      } finally {
        removing--
      }
    },
    persistManualUpdates(queryClient, onError) {
      const watcher = watchManualUpdates({
        queryClient,
        store: storage.store,
        // A change noted during a removal is the signed-out user's: not written.
        accepts: (query) => removing === 0 && query.options.persister === persisterFn && keeps(query),
        keyOf: (query) => `${prefix}-${query.queryHash}`,
        // What TanStack's own persistQuery writes.
        encode: (query) => serialize({ state: query.state, queryKey: query.queryKey, queryHash: query.queryHash, buster }),
        ttl,
        sliceMs,
        written: noteLanded,
        onError: (e) => onError?.(e),
      })
      watchers.add(watcher)
      return watcher.stop
    },
  }
}
