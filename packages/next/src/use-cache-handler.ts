// Next.js's `cacheHandlers` ('use cache', 'use cache: remote'): each entry's byte stream is read
// once and kept as bytes in one envelope with its times and tags; each `get` gets a new stream.
import { readAll, streamOf } from './bytes.js'
import type { NextUseCacheEntry } from './next-types.js'
import type { NextCacheOptions } from './options.js'
import { coreFor } from './shared.js'
import { stampTags, stowageTag } from './tag-book.js'

interface StoredUseCache {
  readonly value: Uint8Array
  readonly tags: string[]
  readonly stowageTags: readonly string[]
  readonly stale: number
  readonly timestamp: number
  readonly expire: number
  readonly revalidate: number
}

/** The object `createUseCacheHandler` returns, for `cacheHandlers: { default, remote }` (Next 15 and 16). */
export interface StowageUseCacheHandler {
  get(cacheKey: string, softTags?: string[]): Promise<NextUseCacheEntry | undefined>
  set(cacheKey: string, pendingEntry: Promise<NextUseCacheEntry>): Promise<void>
  refreshTags(): Promise<void>
  getExpiration(tags: string[]): Promise<number>
  updateTags(tags: string[], durations?: { expire?: number }): Promise<void>
  /** Next 15's name for `updateTags`. */
  expireTags(...tags: string[]): Promise<void>
}

/**
 * Makes a handler for Next.js's `cacheHandlers` ('use cache'), over one Stowage store shared by
 * every instance: `cacheHandlers: { default: require.resolve('./use-cache-handler.mjs') }` with
 * that module's default export set to the result.
 *
 * `set` reads the entry's stream to its end and stores the bytes, its times and tags as one
 * envelope with a TTL of its `expire`; a `get` that comes while a `set` of the same key is pending
 * in this process waits for it. `updateTags` (Next 15: `expireTags`) costs O(tags); `getExpiration`
 * answers the latest revalidation time of the tags from the store, so every instance agrees.
 * A store that fails makes reads misses and writes no-ops, reported to `onError`.
 * @param options - see {@link NextCacheOptions}; shares its cache and tags with `createCacheHandler` given the same object.
 * @returns the handler.
 * @throws {StowageError} INVALID_ARGUMENT for a missing store or a bad option. `updateTags`,
 *   `expireTags` and `getExpiration` reject with STORE_ERROR when the store fails.
 */
export function createUseCacheHandler(options: NextCacheOptions): StowageUseCacheHandler {
  const core = coreFor(options)
  const { cache } = core
  // Writes under way in this process, so a get of the same key waits (Next requires it). Each
  // promise is dropped when its write ends: nothing outlives the request that made it.
  const pending = new Map<string, Promise<void>>()
  const key = (cacheKey: string) => `uc:${cacheKey}`

  async function write(cacheKey: string, pendingEntry: Promise<NextUseCacheEntry>): Promise<void> {
    const entry = await pendingEntry
    // A stream that fails leaves no partial entry behind: the rejection reaches the report.
    const value = await readAll(entry.value)
    const { stamped, rest } = stampTags(entry.tags ?? [])
    const stored: StoredUseCache = { value, tags: entry.tags ?? [], stowageTags: [...stamped, ...rest], stale: entry.stale, timestamp: entry.timestamp, expire: entry.expire, revalidate: entry.revalidate }
    const ttl = Number.isFinite(entry.expire) && entry.expire > 0 ? entry.expire * 1000 : core.ttl
    await cache.set(key(cacheKey), stored, { ttl, tags: stamped.length > 0 ? stamped : undefined })
  }

  return {
    async get(cacheKey, softTags = []) {
      await pending.get(cacheKey)
      const stored = await cache.get<StoredUseCache>(key(cacheKey))
      if (stored === undefined) return undefined
      const byTime = [...softTags.map(stowageTag), ...stored.stowageTags.slice(255)]
      if (byTime.length > 0 && (await core.tags.latest(byTime).catch((e) => (core.report(e), 0))) >= stored.timestamp) return undefined
      return { value: streamOf(stored.value), tags: stored.tags, stale: stored.stale, timestamp: stored.timestamp, expire: stored.expire, revalidate: stored.revalidate }
    },

    async set(cacheKey, pendingEntry) {
      const done = write(cacheKey, pendingEntry).catch((e) => core.report(e))
      pending.set(cacheKey, done)
      try {
        await done
      } finally {
        if (pending.get(cacheKey) === done) pending.delete(cacheKey)
      }
    },

    // Tag state is read from the store on each get: there is no local manifest to refresh.
    async refreshTags() {},

    getExpiration(tags) {
      return core.tags.latest(tags)
    },

    async updateTags(tags, _durations) {
      // A duration (Next 16's stale-while-revalidate for tags) is taken as expiry now.
      await core.tags.revalidate(tags)
    },

    async expireTags(...tags) {
      await core.tags.revalidate(tags)
    },
  }
}
