// How one namespace reads: the in-process tier first, then the store, with stored bytes opened
// (see entry-opener.ts), counted and reported, and worthless ones dropped. Used by the façade
// (cache.ts) and its helpers; it reports to the namespace's observer and never calls back into them.
import type { CacheOperation } from './cache-types.js'
import type { CacheObserver } from './cache-observer.js'
import type { Claim } from './claims.js'
import { openEntry, type Entry, type Opened } from './entry-opener.js'
import { storeKey } from './keys.js'
import type { Shared } from './shared.js'

/** The reads of one namespace. */
export class Reads {
  constructor(
    private readonly shared: Shared,
    private readonly prefix: string,
    private readonly observer: CacheObserver,
  ) {}

  /**
   * The entry under `key`: a hit of the in-process tier comes back as it is, without a promise
   * (the hot path); else the store's, kept in the in-process tier. With `count`, counted as a hit or miss.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`.
   */
  read(key: string, operation: CacheOperation, count: boolean): Entry | Promise<Entry | undefined> {
    const full = storeKey(this.prefix, key)
    return this.near(key, full, count) ?? this.readStore(key, full, operation, count)
  }

  /**
   * The entries under `keys`, in order, as {@link Reads.read} gives each (counted): the in-process
   * tier's first, the others in one call of the store's `getManyWithTtl`, which it must have.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`.
   */
  async readMany(keys: readonly string[]): Promise<Array<Entry | undefined>> {
    const out = new Array<Entry | undefined>(keys.length)
    const missing: number[] = []
    const fulls: string[] = []
    for (let i = 0; i < keys.length; i++) {
      const full = storeKey(this.prefix, keys[i] as string)
      const near = this.near(keys[i] as string, full, true)
      if (near !== undefined) out[i] = near
      else missing.push(i), fulls.push(full)
    }
    if (missing.length === 0) return out
    const read = await this.readStoreMany(missing.map((i) => keys[i] as string), fulls)
    for (let j = 0; j < missing.length; j++) out[missing[j] as number] = read[j]
    return out
  }

  // The in-process tier's live copy of `key` (store key `full`) whose tags are current, counted as a hit with `count`.
  private near(key: string, full: string, count: boolean): Entry | undefined {
    const { local, tags } = this.shared
    const near = local?.get(full)
    if (near === undefined) return undefined
    if (near.tags === undefined || tags.current(this.prefix, near.tags)) {
      if (count) this.observer.hit(key, near.freshUntil, 'local')
      return near
    }
    // A tag of this copy was deleted since: the store tells what is current.
    local?.delete(full)
    return undefined
  }

  /**
   * The entry the store holds under `full` (the store key of `key`), kept in the in-process tier.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`.
   */
  async readStore(key: string, full: string, operation: CacheOperation, count: boolean): Promise<Entry | undefined> {
    const { local, store, claims } = this.shared
    let bytes: Uint8Array | undefined
    // The store's remaining TTL bounds the local copy's life (when the store can tell it).
    let ttl: number | undefined
    // A write of the key while this read waits makes what it read too old to keep (or to drop).
    const claim = claims.begin(full)
    try {
      try {
        if (local && store.getWithTtl) {
          const found = await store.getWithTtl(full)
          bytes = found?.value
          ttl = found?.ttl
        } else {
          bytes = await store.get(full)
        }
      } catch (e) {
        return this.observer.readFailed(key, e, operation, count)
      }
      const kept = this.keep(key, full, bytes, ttl, claim, operation, count)
      return kept instanceof Promise ? await kept : kept
    } finally {
      claims.end(claim)
    }
  }

  // What a read of `full` found, opened and kept in the in-process tier (built frozen when the
  // tier keeps it frozen), unless a write of the key overtook the read (`claim`; the value is then
  // the caller's only, as frozen as it would have been kept). Without a promise when opening needs none.
  private keep(key: string, full: string, bytes: Uint8Array | undefined, ttl: number | undefined, claim: Claim, operation: CacheOperation, count: boolean): Entry | undefined | Promise<Entry | undefined> {
    const { local, store } = this.shared
    const frozen = bytes !== undefined && local?.keepsFrozen(bytes.length, ttl) === true
    const opened = this.open(key, bytes, operation, count, () => (claim.superseded ? Promise.resolve() : store.delete(full)), frozen)
    const kept = (entry: Entry | undefined) => {
      if (entry !== undefined && local && !claim.superseded) local.set(full, entry, (bytes as Uint8Array).length, ttl)
      return entry
    }
    return opened instanceof Promise ? opened.then(kept) : kept(opened)
  }

  /**
   * The entries the store holds under `keys` (their store keys `fulls`), read in one call of the
   * store's `getManyWithTtl` and each then handled as {@link Reads.readStore} handles its key's:
   * kept in the in-process tier unless a write of the key came meanwhile, counted, reported. When
   * that call fails, each key is read on its own by readStore, as `get` would: one damaged entry,
   * or one node of a cluster down, then costs only its own keys.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`.
   */
  async readStoreMany(keys: readonly string[], fulls: readonly string[]): Promise<Array<Entry | undefined>> {
    const { store, claims } = this.shared
    const began = fulls.map((full) => claims.begin(full))
    let found: Array<{ readonly value: Uint8Array; readonly ttl: number | undefined } | undefined>
    try {
      found = await (store.getManyWithTtl as NonNullable<typeof store.getManyWithTtl>)(fulls)
    } catch {
      for (const claim of began) claims.end(claim)
      return Promise.all(keys.map((key, i) => this.readStore(key, fulls[i] as string, 'get', true)))
    }
    // Each key's claim lasts until its own entry is opened (and kept), as readStore's does, also
    // when another key's opening failed first (and the batch with it, as Promise.all of gets does).
    return Promise.all(
      keys.map(async (key, i) => {
        const claim = began[i] as Claim
        try {
          return await this.keep(key, fulls[i] as string, found[i]?.value, found[i]?.ttl, claim, 'get', true)
        } finally {
          claims.end(claim)
        }
      }),
    )
  }

  /**
   * Opens stored bytes (see openEntry), then counts (with `count`) and reports what came of it;
   * bytes found worthless are dropped with `drop` (by default, the store's delete of the key);
   * `frozen`: as openEntry's. Without a promise when openEntry needs none.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`, when checking the tags failed.
   */
  open(
    key: string,
    bytes: Uint8Array | undefined,
    operation: CacheOperation,
    count: boolean,
    drop: () => Promise<unknown> = () => this.shared.store.delete(storeKey(this.prefix, key)),
    frozen = false,
  ): Entry | undefined | Promise<Entry | undefined> {
    const opened = openEntry(this.shared.opener, this.prefix, key, bytes, frozen)
    if (opened instanceof Promise) return opened.then((o) => this.settle(key, o, operation, count, drop))
    return this.settle(key, opened, operation, count, drop)
  }

  // Counts and reports what opening found, and drops worthless bytes.
  private settle(key: string, opened: Opened, operation: CacheOperation, count: boolean, drop: () => Promise<unknown>): Entry | undefined {
    if ('entry' in opened) {
      if (count) this.observer.hit(key, opened.entry.freshUntil, 'store')
      return opened.entry
    }
    if ('storeError' in opened) return this.observer.readFailed(key, opened.storeError, operation, count)
    if (opened.error !== undefined) this.observer.failed(opened.operation ?? operation, key, opened.error)
    if (opened.drop) this.drop(undefined, drop)
    if (count) this.observer.miss(key, opened.miss)
    return undefined
  }

  /**
   * Deletes worthless bytes with `remove`, unless the key was written since they were read
   * (`claim`), without waiting for it. Sent at once, while the read's claim is still open: a write
   * that supersedes it afterwards is ordered after this delete in the store, and one that came
   * before it is seen here.
   */
  drop(claim: Claim | undefined, remove: () => Promise<unknown>): void {
    try {
      if (!claim?.superseded) remove().catch(() => {})
    } catch {
      // A store that throws instead of rejecting: the bytes stay, as after a failed delete.
    }
  }
}
