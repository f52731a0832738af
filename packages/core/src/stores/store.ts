/** Names the lease a write is made under (see {@link StoreSetOptions.fence}). */
export interface StoreFence {
  /** The store key that holds the lease. */
  readonly key: string
  /** The holder's token: the value of `key` while the lease is the writer's. */
  readonly token: string
}

/** Options of {@link Store.set}. */
export interface StoreSetOptions {
  /** Time to live in milliseconds, a positive integer. Defaults to none: the entry does not expire. */
  readonly ttl?: number
  /**
   * Write only while the lease `fence.key` still holds `fence.token`, checked atomically with the
   * write; otherwise reject with LEASE_LOST and leave the key as it is. A store that keeps no
   * leases (the memory store, IndexedDB) ignores it. Defaults to none: an unconditional write.
   */
  readonly fence?: StoreFence
}

/** One entry of {@link Store.setMany}. */
export interface StoreEntry {
  readonly key: string
  readonly value: Uint8Array
  /** Time to live in milliseconds. Defaults to none. */
  readonly ttl?: number
}

/**
 * Where a cache keeps its bytes: Redis, IndexedDB, memory. A store deals only in string keys,
 * `Uint8Array` values and milliseconds; it never sees a decoded value, a string value or base64.
 *
 * `get`, `set` and `delete` are required. The other methods are abilities a store may have; a
 * store declares one by implementing it, and the cache and the contract tests adapt.
 *
 * Every method may reject with a {@link StowageError} (code STORE_UNAVAILABLE, LIMIT_EXCEEDED, …).
 */
export interface Store {
  /** A short name for events and stats, such as `'memory'` or `'redis'`. */
  readonly name: string
  /** The value under `key`, or `undefined` when it is missing or expired. */
  get(key: string): Promise<Uint8Array | undefined>
  /** Stores `value` under `key`, replacing any value and TTL it had. */
  set(key: string, value: Uint8Array, options?: StoreSetOptions): Promise<void>
  /** Removes `key`; resolves `true` when it existed. */
  delete(key: string): Promise<boolean>
  /**
   * The value under `key` with its remaining time to live in ms (`undefined`: it does not
   * expire), or `undefined` when it is missing or expired. A cache's in-process tier uses it so
   * that no local copy outlives the store's entry.
   */
  getWithTtl?(key: string): Promise<{ readonly value: Uint8Array; readonly ttl: number | undefined } | undefined>
  /**
   * {@link Store.getWithTtl} of several keys, in order (`undefined` for the missing ones), in one
   * round trip where the store can batch: a cache's in-process tier reads `getMany` through it.
   */
  getManyWithTtl?(keys: readonly string[]): Promise<Array<{ readonly value: Uint8Array; readonly ttl: number | undefined } | undefined>>
  /** The values under `keys`, in order, `undefined` for the missing ones. */
  getMany?(keys: readonly string[]): Promise<Array<Uint8Array | undefined>>
  /** Stores several entries, each with its own TTL. */
  setMany?(entries: readonly StoreEntry[]): Promise<void>
  /** Removes several keys; resolves how many existed. */
  deleteMany?(keys: readonly string[]): Promise<number>
  /**
   * For each entry, in one atomic step per key: the value under its key, or `value` stored there
   * when the key has none; either way the key then lives at least `ttl` ms from now, or for ever
   * when `ttl` is undefined (a TTL is raised, never lowered). Resolves each key's value after the
   * call. Meant for small values such as a tag's generation: a store may refuse a `value` it
   * would not keep whole (LIMIT_EXCEEDED), and may leave the TTL of such a value found under a key
   * as it is. The cache uses it so that a tag's key lives as long as the entries stamped with it.
   */
  ensureMany?(entries: readonly StoreEntry[]): Promise<Uint8Array[]>
  /** Removes every key that starts with `prefix` (all keys when `prefix` is empty). */
  clear?(prefix: string): Promise<void>
  /** Every live key that starts with `prefix`, in no particular order. */
  keys?(prefix: string): AsyncIterable<string>
  /** Releases what the store holds (timers, connections it opened). Later calls reject. */
  close?(): Promise<void>
  /**
   * Bundles: fields grouped under one key (a Redis hash), sharing one TTL. A key holds either a
   * value or a bundle; using one as the other rejects with STORE_ERROR.
   * The value of `field` in the bundle under `key`, or `undefined`.
   */
  getField?(key: string, field: string): Promise<Uint8Array | undefined>
  /** Every field of the bundle under `key` (an empty Map when there is none). */
  getFields?(key: string): Promise<Map<string, Uint8Array>>
  /** Stores `field` in the bundle under `key`; the TTL, or its absence, then applies to the whole bundle. */
  setField?(key: string, field: string, value: Uint8Array, options?: StoreSetOptions): Promise<void>
  /** Removes `field` from the bundle under `key`; resolves `true` when it existed. */
  deleteField?(key: string, field: string): Promise<boolean>
}
