// The Cache's public contract: what `createCache` returns. The implementation is cache.ts.
import type { AcceptBytesOptions, Bundle, CacheClaim, CacheEvents, CacheKey, CacheSchema, CacheSetOptions, CacheStats, CacheTtlOptions, CacheValue, GetOrSetOptions } from './cache-types.js'
import type { Codec } from '../codec/codec.js'
import type { Store } from '../stores/store.js'

/** A cache over a {@link Store}: typed values in, compact envelopes stored. See `createCache`. */
export interface Cache<S extends CacheSchema = CacheSchema> {
  /** The full namespace, such as `'app'` or `'app:users'`. Keys are stored as `namespace:key`. */
  readonly namespace: string
  /** The store underneath. */
  readonly store: Store
  /** The codec that writes and reads this cache's envelopes. */
  readonly codec: Codec
  /** The schema version this cache writes (`CacheOptions.version`). */
  readonly version: number
  /** The TTL of an entry written without one, in ms (`CacheOptions.ttl`); `undefined`: such entries do not expire. */
  readonly ttl: number | undefined
  /**
   * The envelope stored under `key`, as stored (no decoding): what `fetchCached` and a server
   * hand on without re-encoding. Stats and events are not touched. On Node the bytes are a
   * `Buffer` over the same memory (typed as its base class, Uint8Array), so `reply.send(bytes)` or
   * another Redis client's `set` takes them as bytes.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`; INVALID_ARGUMENT.
   */
  getBytes(key: CacheKey<S>): Promise<Uint8Array | undefined>
  /**
   * Stores an envelope produced elsewhere (a server, another cache) as it is, without decoding
   * and re-encoding it; its header is checked.
   * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED for bytes that are not an envelope; as {@link Cache.set}.
   */
  setBytes(key: CacheKey<S>, envelope: Uint8Array, options?: CacheTtlOptions): Promise<void>
  /**
   * The value in an envelope read with `getBytes`, opened as `get` would open it (schema version
   * and `migrate`, the key's schema, counted as a hit or a miss; `undefined` bytes are a miss;
   * deep-frozen when the in-process tier freezes, as `get` and `acceptBytes` give it, though it
   * is not kept there); `undefined` when unusable (a damaged entry is then deleted, as `get` does).
   * @throws {StowageError} INVALID_ARGUMENT for a bad key.
   */
  openBytes<T = never, K extends CacheKey<S> = CacheKey<S>>(key: K, envelope: Uint8Array | undefined): Promise<([T] extends [never] ? CacheValue<S, K> : T) | undefined>
  /**
   * Takes in an envelope received from elsewhere (a server, through `fetchCached`): opens it as
   * `get` would (schema version and `migrate`, the key's schema), stores it when this cache can
   * use it (as it is, or inflated where this cache's codec would not have deflated it: see
   * {@link AcceptBytesOptions.inflate}), and returns its value. A tag stamp is left behind (`withoutTags`): tags name
   * generations kept in the sender's store. Bytes this cache cannot use are never stored, nor are
   * bytes whose key was written, deleted or cleared while they were on their way: since
   * `options.claim` was taken (see {@link Cache.claim}), else since `acceptBytes` was called.
   * @throws {StowageError} the decode codes (BAD_MAGIC, CHECKSUM_MISMATCH, …) for bad bytes;
   *   UNSUPPORTED_VERSION for a schema version this cache cannot read; SCHEMA_MISMATCH; MIGRATION_FAILED;
   *   INVALID_ARGUMENT for a claim on another key, or one another cache gave out; as {@link Cache.set} for the store.
   */
  acceptBytes<T = never, K extends CacheKey<S> = CacheKey<S>>(key: K, envelope: Uint8Array, options?: AcceptBytesOptions): Promise<[T] extends [never] ? CacheValue<S, K> : T>
  /**
   * Claims `key` before a request for its bytes goes out, for {@link Cache.acceptBytes}: a write,
   * delete or clear of the key while the request is on its way (a sign-out's `clear()`) then keeps
   * what it brings out of the store. End the claim if no bytes come; acceptBytes ends it.
   * @throws {StowageError} INVALID_ARGUMENT for a bad key.
   */
  claim(key: CacheKey<S>): CacheClaim
  /**
   * The value under `key`, or `undefined` on a miss (absent, expired, corrupt, unusable version).
   * A stale value (past its fresh time, before it expires) is returned and counted as a stale hit.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`; INVALID_ARGUMENT for a bad key.
   */
  get<T = never, K extends CacheKey<S> = CacheKey<S>>(key: K): Promise<([T] extends [never] ? CacheValue<S, K> : T) | undefined>
  /**
   * Stores `value` under `key`.
   * @throws {StowageError} STORE_ERROR (unless `writeErrors: 'ignore'`); UNSUPPORTED_TYPE, CYCLE, LIMIT_EXCEEDED from the codec; INVALID_ARGUMENT.
   */
  set<K extends CacheKey<S>>(key: K, value: CacheValue<S, K>, options?: CacheSetOptions): Promise<void>
  /** Removes `key`; resolves `true` when it existed. @throws {StowageError} as {@link Cache.set}. */
  delete(key: CacheKey<S>): Promise<boolean>
  /**
   * Deletes every entry of this namespace written with one of `tags` (by `set`, `setMany` or
   * `getOrSet` with `tags`), in every process: each tag gets a new generation in the store, and
   * entries stamped with an older one read as misses (`reason: 'invalidated'`). Nothing is
   * scanned; a process that missed the announcement sees it on its next read from the store.
   * @throws {StowageError} INVALID_ARGUMENT for bad tags; STORE_ERROR (unless `writeErrors: 'ignore'`).
   */
  deleteByTag(tags: string | readonly string[]): Promise<void>
  /** Whether `get` would find a value (stats and events are not touched). @throws {StowageError} as {@link Cache.get}. */
  has(key: CacheKey<S>): Promise<boolean>
  /**
   * The values under `keys`, in order; one store round trip where the store can batch (with the
   * in-process tier, the keys it lacks, through `Store.getManyWithTtl`, read again key by key when
   * that call fails, so that one bad entry costs only its key; a store without it is read key by
   * key). @throws {StowageError} as {@link Cache.get}.
   */
  getMany<T = never, K extends CacheKey<S> = CacheKey<S>>(keys: readonly K[]): Promise<Array<([T] extends [never] ? CacheValue<S, K> : T) | undefined>>
  /** Stores several values, each with its own TTL. @throws {StowageError} as {@link Cache.set}. */
  setMany<K extends CacheKey<S>>(entries: ReadonlyArray<{ readonly key: K; readonly value: CacheValue<S, K>; readonly ttl?: number; readonly tags?: readonly string[] }>): Promise<void>
  /** Removes several keys; resolves how many existed. @throws {StowageError} as {@link Cache.set}. */
  deleteMany(keys: ReadonlyArray<CacheKey<S>>): Promise<number>
  /** Removes every key of this namespace (and of its child namespaces), never another's. @throws {StowageError} STORE_ERROR. */
  clear(): Promise<void>
  /**
   * The cached value, or the loader's, which is then stored. Concurrent misses of one key in this
   * process share one loader call; a loader error reaches every waiter and is not cached. With
   * `staleFor`, a stale value is served while one background refresh runs. A loaded value the
   * store fails to keep is still returned (the failure is an `error` event).
   * @throws the loader's own error; {@link StowageError} as {@link Cache.get} and from the codec.
   */
  getOrSet<K extends CacheKey<S>, V extends CacheValue<S, K>>(key: K, loader: () => V | Promise<V>, options?: GetOrSetOptions): Promise<V>
  /**
   * Fields grouped under one key, each a compact envelope, with one TTL for all (a Redis hash:
   * fewer keys, less per-key overhead). The store must have the bundle abilities.
   * @throws {StowageError} INVALID_ARGUMENT for a bad key or a store without bundles.
   */
  bundle<V = unknown>(key: CacheKey<S>): Bundle<V>
  /** A cache on the same store and settings under `namespace:name` (`name` may itself hold `:`-joined segments), with its own stats and events. @throws {StowageError} INVALID_ARGUMENT. */
  withNamespace(name: string): Cache<S>
  /** A snapshot of this namespace's counters. */
  stats(): CacheStats
  /** Listens to an event; returns a function that stops listening. Listener errors are ignored. */
  on<E extends keyof CacheEvents>(event: E, listener: (event: CacheEvents[E]) => void): () => void
  /** Closes the store if this cache created it (the default memory store); a store you passed stays yours. */
  close(): Promise<void>
}
