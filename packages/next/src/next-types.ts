// The shapes Next.js hands its cache handlers (Next 15 and 16), written out structurally so the
// package needs no `next` import: the incremental cache's values and contexts, and 'use cache' entries.

/**
 * `cacheControl` of an entry: Next hands it to `set` from 15.3 and reads it back from `get` from
 * 16.4, so that any instance serves the entry with its lifetime (earlier, only the one that rendered it).
 */
export interface NextCacheControl {
  readonly revalidate: number | false
  readonly expire: number | undefined
}

/** A value of Next's incremental cache: `kind` is APP_PAGE, APP_ROUTE, PAGES, FETCH, REDIRECT or IMAGE. */
export interface NextIncrementalValue {
  readonly kind: string
  readonly [field: string]: unknown
}

/** What a `cacheHandler`'s `get` resolves. */
export interface NextCacheHandlerValue {
  lastModified: number
  value: NextIncrementalValue | null
  cacheControl?: NextCacheControl
}

/** The context of a `cacheHandler`'s `get` (the fields this handler reads). */
export interface NextGetContext {
  readonly kind?: string
  readonly tags?: readonly string[]
  readonly softTags?: readonly string[]
  readonly [field: string]: unknown
}

/** The context of a `cacheHandler`'s `set` (the fields this handler reads). */
export interface NextSetContext {
  readonly fetchCache?: boolean
  readonly tags?: readonly string[]
  readonly cacheControl?: NextCacheControl
  /** Next 14 and early 15 passed `revalidate` here instead of `cacheControl`. */
  readonly revalidate?: number | false
  readonly [field: string]: unknown
}

/** A 'use cache' entry (`cacheHandlers`): its value is a byte stream. */
export interface NextUseCacheEntry {
  value: ReadableStream<Uint8Array>
  tags: string[]
  /** Seconds, for the client. */
  stale: number
  /** When the entry was created, ms since the epoch. */
  timestamp: number
  /** Seconds after `timestamp` the entry may be used at most. */
  expire: number
  /** Seconds after `timestamp` the entry should be regenerated. */
  revalidate: number
}
