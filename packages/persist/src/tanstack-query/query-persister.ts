import { checkOptionNames, StowageError, StowageErrorCode, type Codec, type CodecOptions, type Store } from '@stowage/core'
import { hashKey, matchQuery, partialMatchKey, type Query, type QueryCache, type QueryClient, type QueryFilters, type QueryState } from '@tanstack/query-core'
import { experimental_createQueryPersister, type PersistedQuery } from '@tanstack/query-persist-client-core'
import { deleteMany } from '../shared/batch.js'
import { beginRemoval, removalNotices, TOLD_LATE_MS } from '../shared/removal-notices.js'
import { noticeName } from '../shared/resolve-store.js'
import { slicedQueue } from '../shared/sliced-queue.js'
import { DEFAULT_SLICE_MS } from '../shared/yield-to-main.js'
import { watchManualUpdates, type ManualUpdatesWatcher } from './manual-updates.js'
import { DEFAULT_QUERY_PREFIX, querySerializer, queryStorage } from './query-storage.js'

/** How many query hashes the fetched-Query index holds before it drops those whose Queries are gone (at least). */
const PRUNE_MIN = 256

// The query caches whose fetch successes a persister's `succeeded` hears, by that function: each
// cache once. The subscription holds it weakly, made in a scope of its own (a closure made beside
// a strong reference would keep it), and ends at the first event after the persister is gone.
const watching = new WeakMap<QueryCache, WeakSet<(query: Query) => void>>()

function watchSuccesses(cache: QueryCache, succeeded: (query: Query) => void): void {
  const watched = watching.get(cache) ?? new WeakSet()
  if (watched.has(succeeded)) return
  watching.set(cache, watched.add(succeeded))
  hearSuccessesWeakly(cache, new WeakRef(succeeded))
}

function hearSuccessesWeakly(cache: QueryCache, succeeded: WeakRef<(query: Query) => void>): void {
  const stop = cache.subscribe((event) => {
    const heard = succeeded.deref()
    if (heard === undefined) return stop()
    if (event.type === 'updated' && event.action.type === 'success' && !event.action.manual) heard(event.query)
  })
}

/** TanStack's default `maxAge` of persisted queries: 24 hours. */
export const DEFAULT_MAX_AGE = 24 * 60 * 60 * 1000

/** Options of {@link createStowageQueryPersister}. Every field is optional. */
export interface StowageQueryPersisterOptions {
  /** Where the envelopes go. Defaults to an `@stowage/idb` store over the database `dbName`. */
  readonly store?: Store
  /** The IndexedDB database of the store created when `store` is not given. Defaults to `'stowage-persist'`. */
  readonly dbName?: string
  /** A codec or codec options for the envelopes. Defaults to {@link QUERY_CODEC_OPTIONS} (no deflate under 256 KiB in browsers). */
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
  /** Longest run of encoding or decoding before the page runs (ms): the queries TanStack writes after their fetches and restores, and `persistManualUpdates`. Defaults to 8. */
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
   * @param onError - receives a failed write (a {@link StowageError} from the store or the codec), and once a STORE_ERROR when another page's sign-out stopped this persister. Defaults to ignoring failed writes, as TanStack ignores its own; the stop goes to `console.error` when no `persistManualUpdates` of the persister was given an `onError`.
   * @returns a function that stops watching (what was noted before it is still written, unless `removeClient` drops it).
   */
  persistManualUpdates(queryClient: QueryClient, onError?: (error: unknown) => void): () => void
  /**
   * Deletes every persisted query of this persister (a sign-out; `signOut` from `@stowage/http`
   * calls it): drops the `setQueryData` changes `persistManualUpdates` noted and has not written,
   * waits for a write under way, then deletes this prefix's entries (and records under it no
   * codec can read), never another prefix's or the whole-client persister's. A write that lands
   * after a removal began is deleted once it lands, and so is every write of an answer fetched
   * before it (TanStack's scheduled one, the app's own `persistQuery`). The other open pages
   * persisting this prefix, and other persisters of it in this page, are told at once (a
   * BroadcastChannel): they may run the signed-out user's session, so they persist and restore
   * nothing more until reloaded, and tell `persistManualUpdates`' `onError` once (STORE_ERROR).
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
  const encoding = slicedQueue(sliceMs)
  const watchers = new Set<ManualUpdatesWatcher>()
  // A sign-out's removal against writes still to come. Removals begun, and running: a write asked
  // for during one is dropped, and so is every write of an answer fetched before one (the
  // signed-out user's, however late it comes or is written).
  let removals = 0
  let removing = 0
  // The ids of this persister's removals (see beginRemoval).
  const ownRemovals = new Set<string>()
  // Another page told of its sign-out (or another persister of this page): this page may still
  // hold that user's session, so it writes and restores nothing more until it is reloaded, as the
  // whole-client persister does.
  let stopped = false
  const onErrors = new Set<(error: unknown) => void>()
  const stopError = () =>
    new StowageError(StowageErrorCode.STORE_ERROR, `not persisted: another page removed the persisted queries under the prefix '${prefix}' (a sign-out); this page may hold the signed-out user's session and persists and restores nothing more until it is reloaded`)
  // Which removal each Query's data belongs to: the `removals` count at which the fetch that put it
  // began (its first attempt: TanStack calls the persister again for each retry; a page appended to
  // an infinite query's pages belongs to the older of the two), or, for a `setQueryData` that
  // persistManualUpdates saw, that of the data it replaced (an updater may keep it); with the
  // `dataUpdateCount` and `dataUpdatedAt` of the state it made (a fetch's, seen as TanStack
  // dispatches it; `hydrate` may bring another state of the same count). Every write
  // of the Query is judged by it, TanStack's (in a callback it schedules, which a background tab
  // runs up to a second later) and the app's own (persistQuery, persistQueryByKey), whatever became
  // of its state since. Data of no answer seen here (restored, hydrated, reverted to by a cancelled
  // fetch) belongs to no removal known: once this page has seen a removal, it is not written. Held
  // by Query, weakly; serialize is handed a state, so the Queries answered are found by hash.
  const answers = new WeakMap<Query, { readonly count: number; readonly at: number; readonly begun: number }>()
  // Each Query's fetches, in one record (a first screen fetches thousands of Queries at once): the
  // removal its latest fetch began in, the number of its latest persisterFn call, and the removal
  // of the data of an answer whose success TanStack has yet to dispatch.
  const fetches = new WeakMap<Query, { begun: number; call: number; answering: number | undefined }>()
  const answered = new Map<string, Array<WeakRef<Query>>>()
  let pruneAt = PRUNE_MIN
  // The removal data of no answer seen here belongs to: the only one there has been, or one
  // earlier than any (-1) once this page has seen a removal.
  const unknownBegun = () => (removals === 0 ? 0 : -1)
  // The removal the data of a state of `query` belongs to.
  const dataBegun = (query: Query, state: Pick<QueryState, 'dataUpdateCount' | 'dataUpdatedAt'>) => {
    const answer = answers.get(query)
    return answer?.count === state.dataUpdateCount && answer.at === state.dataUpdatedAt ? answer.begun : unknownBegun()
  }
  const note = (query: Query, answer: { count: number; at: number; begun: number }) => {
    answers.set(query, answer)
    const live = (answered.get(query.queryHash) ?? []).filter((ref) => ref.deref() !== undefined && ref.deref() !== query)
    answered.set(query.queryHash, [...live, new WeakRef(query)])
    if (answered.size < pruneAt) return
    for (const [hash, refs] of answered) {
      const kept = refs.filter((ref) => ref.deref() !== undefined)
      if (kept.length > 0) answered.set(hash, kept)
      else answered.delete(hash)
    }
    pruneAt = Math.max(PRUNE_MIN, answered.size * 2)
  }
  // A fetch answered: its success comes next (seen by `succeeded`, through the cache).
  const noteAnswer = (query: Query, begun: number, appends: boolean) => {
    fetches.get(query)!.answering = appends ? Math.min(begun, dataBegun(query, query.state)) : begun
  }
  // TanStack dispatched a fetch's success (not a restore's: no answer waits): the state it made is
  // that answer's, exactly (a `hydrate` of the same count later is not).
  const succeeded = (query: Query) => {
    const fetch = fetches.get(query)
    const begun = fetch?.answering
    if (begun === undefined) return
    fetch!.answering = undefined
    note(query, { count: query.state.dataUpdateCount, at: query.state.dataUpdatedAt, begun })
  }
  // A setQueryData persistManualUpdates saw (its state already made): of the removal of the data
  // it replaced, if any; of the current one otherwise.
  const noteManual = (query: Query, before: QueryState | undefined) => {
    const { dataUpdateCount: count, dataUpdatedAt: at } = query.state
    const answer = answers.get(query)
    let replaced: number
    if (count <= 1) replaced = removals
    else if (before !== undefined) replaced = dataBegun(query, before)
    else replaced = answer?.count === count - 1 ? answer.begun : unknownBegun()
    note(query, { count, at, begun: replaced })
    return replaced
  }
  // Whether a write of this state carries data of an earlier removal than the latest.
  const ofEarlierRemoval = (hash: string, state: QueryState) => {
    for (const ref of answered.get(hash) ?? []) {
      const query = ref.deref()
      if (query?.state === state) return dataBegun(query, state) !== removals
    }
    return unknownBegun() !== removals
  }
  // When this page's latest removal began. A record of data older than it, read after it, is the
  // signed-out user's, whoever wrote it (another page's write that landed after the delete, before
  // that page heard of the removal and deleted it): never handed over, and removed.
  let removedAt: number | undefined
  const ofEarlierSession = (found: PersistedQuery) => removedAt !== undefined && found.state.dataUpdatedAt <= removedAt
  const late = new WeakSet<Uint8Array>()
  // This page's writes of the last TOLD_LATE_MS, by key, with when each landed (oldest first).
  const landed = new Map<string, number>()
  const noteLanded = (keys: readonly string[]) => {
    const now = Date.now()
    for (const key of keys) landed.delete(key), landed.set(key, now)
    for (const [key, at] of landed) {
      if (at >= now - TOLD_LATE_MS) break
      landed.delete(key)
    }
  }
  // A removal of this prefix by another persister (another page's sign-out, told at once): this
  // page stops. The notice may come after writes of this page that landed after that page's
  // delete, so what this page wrote lately goes too (what landed before that delete, it deleted
  // anyway).
  const notices = removalNotices(noticeName('stowage-persist-queries', prefix, options), ({ id }) => {
    // Heard while this persister's own removal runs, or told by a removal of this page that ran
    // with one of its own (persisters of one page signing out together, as signOut removes them):
    // that removal covers it, and this page persists the next user's.
    if (removing > 0 || ownRemovals.has(id)) return
    removals++
    for (const watcher of watchers) void watcher.discard()
    const lately = [...landed.keys()]
    landed.clear()
    void deleteMany(storage.store, lately).catch(() => {})
    if (stopped) return
    stopped = true
    const error = stopError()
    // Not without a word: with no onError given, as the whole-client persister's default.
    if (onErrors.size === 0) console.error(error)
    for (const onError of onErrors) onError(error)
  })
  // A read of this prefix's records that a removal overtook (or made during one, or after this
  // page stopped) finds nothing: what it read may be the signed-out user's.
  const unlessRemoved = async <T>(read: () => T | Promise<T>, nothing: T): Promise<T> => {
    if (stopped || removing > 0) return nothing
    const begun = removals
    const found = await read()
    return stopped || begun !== removals ? nothing : found
  }
  const persister = experimental_createQueryPersister<Uint8Array>({
    storage: {
      ...storage,
      getItem: (key) => unlessRemoved(() => storage.getItem(key), null),
      entries: () => unlessRemoved(() => storage.entries(), []),
      setItem: async (key, value) => {
        if (stopped || late.has(value) || removing > 0) return
        const begun = removals
        await storage.setItem(key, value)
        noteLanded([key])
        // A removal began while the write was under way: it may have landed after the removal's
        // delete, so it goes too (and with it a next user's write of the key that landed between
        // them: a miss, never another user's query).
        if (begun !== removals) await storage.removeItem(key)
      },
    },
    // TanStack serializes each query it writes on its own, all of a burst of fetches in one task
    // (5,000 queries: one task of seconds): encoded in slices here. Whose data it is, is judged
    // now, on the state handed over; a removal begun before the encode ends makes it late too.
    serialize: async (persistedQuery) => {
      const begun = removals
      const early = ofEarlierRemoval(persistedQuery.queryHash, persistedQuery.state)
      const bytes = await encoding.run(() => serialize(persistedQuery))
      if (early || begun !== removals) late.add(bytes)
      return bytes
    },
    // Decoded in slices too: a first screen asking for 5,000 queries has them all read at once.
    // What a removal overtook (begun while the record waited) is not handed over, as unlessRemoved.
    deserialize: async (bytes) => {
      const begun = removals
      const found = await encoding.run(() => deserialize(bytes))
      // TanStack removes a record it cannot read.
      if (ofEarlierSession(found) || stopped || removing > 0 || begun !== removals) throw new StowageError(StowageErrorCode.STORE_ERROR, 'a query of the user this page signed out')
      return found
    },
    maxAge,
    buster,
    prefix,
    refetchOnRestore: options.refetchOnRestore ?? true,
    filters: options.filters,
  })
  const keeps = (query: Query) => !options.filters || matchQuery(options.filters, query)
  const persisterFn: typeof persister.persisterFn = (queryFn, ctx, query) => {
    // A retry (the query's failures not yet reset by a new fetch) belongs to the fetch it retries.
    let fetch = fetches.get(query)
    const begun = (query.state.fetchFailureCount > 0 ? fetch?.begun : undefined) ?? removals
    if (fetch === undefined) fetches.set(query, (fetch = { begun, call: 0, answering: undefined }))
    else fetch.begun = begun
    // Whether TanStack writes the query after this fetch: decided as it decides, when it begins.
    const written = keeps(query)
    // A page appended to an infinite query's pages (fetchNextPage, fetchPreviousPage).
    const appends = (query.state.fetchMeta as { fetchMore?: unknown } | null)?.fetchMore !== undefined
    if (written) watchSuccesses(ctx.client.getQueryCache(), succeeded)
    // This call is the Query's latest: an answer noted before it (of a fetch whose success never
    // came: cancelled, failed after answering) is void, and so is one of an earlier call that
    // answers after it began (its success is not the one that comes next).
    const call = ++fetch.call
    fetch.answering = undefined
    const watched = async (context: typeof ctx) => {
      const data = await queryFn(context)
      if (written && fetch.call === call) noteAnswer(query, begun, appends)
      return data
    }
    return persister.persisterFn(watched, ctx, query)
  }
  // TanStack's restoreQueries sets each query as it goes, awaiting the removal of stale ones between
  // them: a removal begun meanwhile (here or told) would see the rest set after it. Here every query
  // read is set at once, or none when a removal overtook the read; stale and damaged ones go after.
  const restoreQueries: typeof persister.restoreQueries = async (queryClient, filters = {}) => {
    const begun = removals
    const entries = await unlessRemoved(() => storage.entries(), [])
    if (stopped || removing > 0 || begun !== removals) return
    const restored: PersistedQuery[] = []
    const stale: string[] = []
    for (const [key, bytes] of entries) {
      let found: PersistedQuery
      try {
        found = deserialize(bytes)
      } catch {
        stale.push(key)
        continue
      }
      const { dataUpdatedAt } = found.state
      if (!dataUpdatedAt || Date.now() - dataUpdatedAt > maxAge || found.buster !== buster || ofEarlierSession(found)) stale.push(key)
      else if (filters.queryKey === undefined) restored.push(found)
      else if (filters.exact ? found.queryHash === hashKey(filters.queryKey) : partialMatchKey(found.queryKey, filters.queryKey)) restored.push(found)
    }
    for (const found of restored) queryClient.setQueryData(found.queryKey, found.state.data, { updatedAt: found.state.dataUpdatedAt })
    for (const key of stale) await storage.removeItem(key)
  }
  return {
    ...persister,
    persisterFn,
    restoreQueries,
    store: storage.store,
    async removeClient() {
      removedAt = Date.now()
      // This page's own removal: what it persists from now on is the next user's, also after
      // another page's removal had stopped it (as the whole-client persister).
      stopped = false
      removals++
      removing++
      const removal = beginRemoval()
      ownRemovals.add(removal.id)
      notices.tell(removal.id)
      try {
        await Promise.all([...watchers].map((watcher) => watcher.discard()))
        await storage.removeAll()
      } finally {
        removing--
        removal.end()
      }
    },
    persistManualUpdates(queryClient, onError) {
      const watcher = watchManualUpdates({
        queryClient,
        store: storage.store,
        // A change noted during a removal is the signed-out user's: not written.
        // So is one that keeps data of the signed-out user (an updater merging what was there).
        accepts: (query, before) => removing === 0 && !stopped && query.options.persister === persisterFn && keeps(query) && noteManual(query, before) === removals,
        keyOf: (query) => `${prefix}-${query.queryHash}`,
        // What TanStack's own persistQuery writes.
        encode: (query) => serialize({ state: query.state, queryKey: query.queryKey, queryHash: query.queryHash, buster }),
        ttl,
        sliceMs,
        written: noteLanded,
        onError: (e) => onError?.(e),
      })
      watchers.add(watcher)
      if (onError) onErrors.add(onError)
      // Already stopped: told now (after this call returns), as it would have been.
      if (stopped && onError) queueMicrotask(() => onError(stopError()))
      return () => {
        if (onError) onErrors.delete(onError)
        watcher.stop()
      }
    },
  }
}
