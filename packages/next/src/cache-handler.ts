// Next.js's `cacheHandler` (the incremental cache: ISR and app pages, route handlers, the fetch
// cache, images): each entry is one Stowage envelope holding the value as Next gave it, binary
// parts as bytes (RSC payload, segment data, route bodies), with its `lastModified` and its
// `cacheControl`, so another instance serves it with its lifetime instead of rendering it again
// (Next 16.4 and later read it back; earlier ones give a page rendered on demand elsewhere 1 s).
import type { Cache } from '@stowage/core'
import { withBuffers } from './bytes.js'
import type { NextCacheControl, NextCacheHandlerValue, NextGetContext, NextIncrementalValue, NextSetContext } from './next-types.js'
import type { NextCacheOptions } from './options.js'
import { coreFor, type NextCacheCore } from './shared.js'
import { stampTags, stowageTag } from './tag-book.js'

/** The header of a page or route entry that lists its tags, implicit ones included. */
export const NEXT_CACHE_TAGS_HEADER = 'x-next-cache-tags'

/** What one incremental entry holds in the store. */
interface StoredIncremental {
  readonly lastModified: number
  readonly value: NextIncrementalValue
  readonly cacheControl: NextCacheControl | undefined
  /** Every tag of the entry (Stowage names); the first 255 are also stamped. */
  readonly tags: readonly string[]
}

/** A `cacheHandler` instance, as Next constructs it. */
export interface StowageCacheHandler {
  get(key: string, ctx?: NextGetContext): Promise<NextCacheHandlerValue | null>
  set(key: string, data: NextIncrementalValue | null, ctx?: NextSetContext): Promise<void>
  revalidateTag(tags: string | string[], durations?: { expire?: number }): Promise<void>
  resetRequestCache(): void
}

/** The class `createCacheHandler` returns: Next calls `new` on it, maybe once per request. */
export type StowageCacheHandlerClass = new (ctx?: { revalidatedTags?: readonly string[] }) => StowageCacheHandler

function entryTags(data: NextIncrementalValue, ctx: NextSetContext | undefined): string[] {
  if (data.kind === 'FETCH') return [...(ctx?.tags ?? []), ...(Array.isArray(data.tags) ? (data.tags as string[]) : [])]
  const header = (data.headers as Record<string, unknown> | undefined)?.[NEXT_CACHE_TAGS_HEADER]
  return typeof header === 'string' ? header.split(',') : []
}

function lifetime(data: NextIncrementalValue, ctx: NextSetContext | undefined): NextCacheControl | undefined {
  if (data.kind === 'FETCH' || ctx?.fetchCache) return undefined
  if (ctx?.cacheControl) return ctx.cacheControl
  return ctx?.revalidate === undefined ? undefined : { revalidate: ctx.revalidate, expire: undefined }
}

function key(cacheKey: string): string {
  return `isr:${cacheKey}`
}

async function read(core: NextCacheCore, cache: Cache, cacheKey: string, ctx: NextGetContext | undefined, revalidatedHere: ReadonlySet<string>): Promise<NextCacheHandlerValue | null> {
  const stored = await cache.get<StoredIncremental>(key(cacheKey))
  if (stored === undefined || stored.value === undefined) return null
  // Tags the entry was not stamped with are checked by time: a fetch read's soft tags (the page's
  // implicit tags) and tags it names anew, and tags past the 255 a stamp holds.
  const own = new Set(stored.tags)
  const byTime = [...(ctx?.softTags ?? []), ...(ctx?.tags ?? [])].map(stowageTag).filter((tag) => !own.has(tag))
  byTime.push(...stored.tags.slice(255))
  if ([...own, ...byTime].some((tag) => revalidatedHere.has(tag))) return null
  if (byTime.length > 0 && (await core.tags.latest(byTime)) >= stored.lastModified) return null
  const value: NextCacheHandlerValue = { lastModified: stored.lastModified, value: withBuffers(stored.value) }
  if (stored.cacheControl !== undefined) value.cacheControl = stored.cacheControl
  return value
}

/**
 * Makes the class for Next.js's `cacheHandler` option, over one Stowage store shared by every
 * instance of the app. Put it in a module of its own and name that module in `next.config`:
 * `cacheHandler: require.resolve('./cache-handler.mjs')`, with `cacheMaxMemorySize: 0`.
 *
 * `get` and `set` keep Next's value whole (binary parts as bytes, `cacheControl`, `lastModified`)
 * in one envelope; `set` stamps the entry with its tags (a page's `x-next-cache-tags`, a fetch's
 * tags) and gives it a TTL of its `expire` (else the `ttl` option). `revalidateTag` costs O(tags):
 * each tag gets a new generation and its revalidation time; nothing is listed or scanned.
 * A store that fails makes reads misses and writes no-ops (Next renders), reported to `onError`.
 * @param options - see {@link NextCacheOptions}; handlers made from one options object share a cache.
 * @returns the handler class.
 * @throws {StowageError} INVALID_ARGUMENT for a missing store or a bad option. `revalidateTag`
 *   rejects with STORE_ERROR when the store fails (the tags are then not revalidated).
 */
export function createCacheHandler(options: NextCacheOptions): StowageCacheHandlerClass {
  const core = coreFor(options)
  const { cache } = core
  return class StowageNextCacheHandler implements StowageCacheHandler {
    private readonly revalidatedHere: ReadonlySet<string>

    constructor(ctx?: { revalidatedTags?: readonly string[] }) {
      // Tags this request already revalidated (Next's minimal mode passes them in a header).
      this.revalidatedHere = new Set((ctx?.revalidatedTags ?? []).map(stowageTag))
    }

    get(cacheKey: string, ctx?: NextGetContext): Promise<NextCacheHandlerValue | null> {
      return read(core, cache, cacheKey, ctx, this.revalidatedHere)
    }

    async set(cacheKey: string, data: NextIncrementalValue | null, ctx?: NextSetContext): Promise<void> {
      try {
        if (data === null || data === undefined) {
          await cache.delete(key(cacheKey))
          return
        }
        const cacheControl = lifetime(data, ctx)
        const { stamped, rest } = stampTags(entryTags(data, ctx))
        const stored: StoredIncremental = { lastModified: Date.now(), value: data, cacheControl, tags: [...stamped, ...rest] }
        const ttl = typeof cacheControl?.expire === 'number' && cacheControl.expire > 0 ? cacheControl.expire * 1000 : core.ttl
        await cache.set(key(cacheKey), stored, { ttl, tags: stamped.length > 0 ? stamped : undefined })
      } catch (e) {
        core.report(e)
      }
    }

    async revalidateTag(tags: string | string[], _durations?: { expire?: number }): Promise<void> {
      // A duration (Next 16's stale-while-revalidate for tags) is taken as expiry now: the next
      // read renders, never serves the revalidated entry again.
      await core.tags.revalidate(typeof tags === 'string' ? [tags] : tags)
    }

    // Nothing is memoised per request: each read goes to the store.
    resetRequestCache(): void {}
  }
}
