import type { Codec, CodecOptions, Store, StowageError } from '@stowage/core'

/** Options of `createCacheHandler` and `createUseCacheHandler`. */
export interface NextCacheOptions {
  /** The Stowage store every Next.js instance shares (`createRedisStore`). It stays yours. */
  readonly store: Store
  /**
   * The Stowage namespace of the entries and tags: instances of one app share it; two apps on one
   * Redis need two. Defaults to `'next'` ({@link DEFAULT_NEXT_NAMESPACE}).
   */
  readonly namespace?: string
  /**
   * TTL in ms of entries Next gives no lifetime: fetch-cache entries, and pages with
   * `revalidate: false` and no `expire`. Entries with an `expire` live that long. Defaults to
   * none: such entries stay until Redis evicts them.
   */
  readonly ttl?: number
  /** A codec, or options for one. Defaults to the default codec options. */
  readonly codec?: Codec | CodecOptions
  /**
   * Hears what a handler swallowed so that Next renders instead of failing: a store that failed
   * on a read or a write. Defaults to a `console.warn` line per failure.
   */
  readonly onError?: (error: StowageError) => void
}

/** Default of {@link NextCacheOptions.namespace}. */
export const DEFAULT_NEXT_NAMESPACE = 'next'
