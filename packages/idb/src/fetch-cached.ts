import { StowageError, StowageErrorCode, type Cache } from '@stowage/core'

/** The media type of a Stowage envelope in HTTP. */
export const STOWAGE_MEDIA_TYPE = 'application/vnd.stowage'

/** Options of {@link fetchCached}. */
export interface FetchCachedOptions {
  /** The cache the received bytes go into (typically over `createIdbStore`). */
  readonly cache: Cache
  /** The cache key. Defaults to the URL. */
  readonly key?: string
  /** TTL of the stored entry, in ms. Defaults to the cache's. */
  readonly ttl?: number
  /** Extra request options (headers are merged). Defaults to none. */
  readonly init?: RequestInit
  /** The fetch function. Defaults to `globalThis.fetch`. */
  readonly fetch?: typeof globalThis.fetch
}

/** Where a {@link fetchCached} value came from. */
export type FetchSource = 'network' | 'revalidated' | 'offline' | 'stale'

/** A value with how it was obtained. */
export interface FetchCachedResult<T> {
  readonly value: T
  /** `network`: new bytes, now stored; `revalidated`: 304, the stored bytes; `offline`: the request failed, the stored bytes; `stale`: the server answered an error, the stored bytes. */
  readonly source: FetchSource
  /** The envelope the value was decoded from, exactly as stored. */
  readonly bytes: Uint8Array
  /** The ETag the server gave these bytes, if any. */
  readonly etag: string | undefined
}

const etagKey = (key: string) => `${key}#etag`

/**
 * Fetches a Stowage envelope over HTTP, keeps the received bytes as they are (no decode and
 * re-encode before storing), and returns the decoded value. With a stored copy it revalidates
 * (`If-None-Match`, 304 keeps the copy); when the network fails, or the server answers an
 * error, it serves the stored copy.
 *
 * @returns the value and where it came from.
 * @throws {StowageError} STORE_ERROR when the request fails (or the server errs) and nothing is stored;
 *   BAD_MAGIC and the other decode codes when the response is not an envelope.
 */
export async function fetchCachedWithInfo<T = unknown>(url: string, options: FetchCachedOptions): Promise<FetchCachedResult<T>> {
  const { cache, key = url, ttl, init } = options
  const fetchFn = options.fetch ?? globalThis.fetch
  const stored = await cache.getBytes(key)
  const storedEtag = stored === undefined ? undefined : await cache.get<string>(etagKey(key))
  const fromStore = async (source: FetchSource): Promise<FetchCachedResult<T>> => ({
    value: await cache.codec.decodeAsync<T>(stored as Uint8Array),
    source,
    bytes: stored as Uint8Array,
    etag: storedEtag,
  })
  const headers = new Headers(init?.headers)
  headers.set('Accept', STOWAGE_MEDIA_TYPE)
  if (storedEtag !== undefined) headers.set('If-None-Match', storedEtag)
  let response: Response
  try {
    response = await fetchFn(url, { ...init, headers })
  } catch (e) {
    if (stored !== undefined) return fromStore('offline')
    throw new StowageError(StowageErrorCode.STORE_ERROR, `fetching ${url} failed and nothing is cached`, { cause: e })
  }
  if (response.status === 304 && stored !== undefined) return fromStore('revalidated')
  if (!response.ok) {
    if (stored !== undefined) return fromStore('stale')
    throw new StowageError(StowageErrorCode.STORE_ERROR, `fetching ${url} failed: HTTP ${response.status}`)
  }
  const bytes = new Uint8Array(await response.arrayBuffer())
  // Decoded first: bytes that are not a valid envelope are never stored.
  const value = await cache.codec.decodeAsync<T>(bytes)
  await cache.setBytes(key, bytes, { ttl })
  const etag = response.headers.get('ETag') ?? undefined
  if (etag !== undefined) await cache.set(etagKey(key), etag, { ttl })
  else await cache.delete(etagKey(key))
  return { value, source: 'network', bytes, etag }
}

/**
 * {@link fetchCachedWithInfo}, returning only the value.
 * @throws {StowageError} as {@link fetchCachedWithInfo}.
 */
export async function fetchCached<T = unknown>(url: string, options: FetchCachedOptions): Promise<T> {
  return (await fetchCachedWithInfo<T>(url, options)).value
}
