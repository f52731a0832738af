// The client half: fetch an envelope from a server that uses serve.ts (or any server that sends
// envelopes), keep it in a Cache exactly as received, and revalidate it with the ETag computed
// from the stored bytes themselves (etag.ts): the validator cannot fall out of step with the value.
import { StowageError, StowageErrorCode, withoutTags, type Cache } from '@stowage/core'
import { envelopeEtag } from './etag.js'
import { STOWAGE_MEDIA_TYPE } from './media-type.js'

/** Options of {@link fetchCached}. */
export interface FetchCachedOptions {
  /** The cache the received bytes go into (typically over `createIdbStore`). */
  // Any cache, typed by schemas or not: keys here are URLs or route parameters.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly cache: Cache<any>
  /** The cache key. Defaults to the URL. */
  readonly key?: string
  /** TTL of the stored entry, in ms. Defaults to the cache's. */
  readonly ttl?: number
  /** Extra request options (headers are merged). Defaults to none. */
  readonly init?: RequestInit
  /** The fetch function. Defaults to `globalThis.fetch`. */
  readonly fetch?: typeof globalThis.fetch
  /**
   * The largest response body read, in bytes: a larger `Content-Length` is refused before reading,
   * a body without one is cut off as soon as it passes. Defaults to the codec's `maxBytes` plus
   * 1 KiB for the envelope's header.
   */
  readonly maxBytes?: number
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
  /** The bytes' ETag (computed from them, as the server does). */
  readonly etag: string
}

const HEADER_ALLOWANCE = 1024

// The body, read as it streams in, never past `limit` bytes.
async function readBody(response: Response, limit: number, url: string): Promise<Uint8Array> {
  const tooLarge = (what: string) => new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `the response from ${url} is ${what}, more than maxBytes (${limit})`)
  const declared = Number(response.headers.get('Content-Length') ?? NaN)
  if (declared > limit) {
    await response.body?.cancel().catch(() => {})
    throw tooLarge(`${declared} bytes by its Content-Length`)
  }
  if (response.body === null) return new Uint8Array(0)
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (total > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(`over ${total} bytes so far`)
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array
  const out = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

/**
 * Fetches a Stowage envelope over HTTP and keeps the received bytes in the cache as they are (no
 * re-encode), through the Cache: schema version and `migrate`, the key's schema, stats and
 * events apply. With a usable stored copy it revalidates (`If-None-Match` with the copy's ETag;
 * a 304 keeps it); when the network fails or the server answers an error, it serves the stored
 * copy. A damaged or unusable stored copy counts as none.
 *
 * @returns the value, where it came from, the envelope and its ETag.
 * @throws {StowageError} STORE_ERROR when the request fails (or the server errs) and nothing usable
 *   is stored; LIMIT_EXCEEDED for a body over `maxBytes`; BAD_MAGIC and the other decode codes,
 *   UNSUPPORTED_VERSION, SCHEMA_MISMATCH when the response is not an envelope this cache can use.
 */
export async function fetchCachedWithInfo<T = unknown>(url: string, options: FetchCachedOptions): Promise<FetchCachedResult<T>> {
  const { cache, key = url, ttl, init } = options
  const fetchFn = options.fetch ?? globalThis.fetch
  const limit = options.maxBytes ?? cache.codec.options.maxBytes + HEADER_ALLOWANCE
  let stored = await cache.getBytes(key)
  // Opened as get would (a hit or a miss in the stats); a copy the cache cannot use counts as none.
  const storedValue = await cache.openBytes(key, stored)
  if (storedValue === undefined) stored = undefined
  const fromStore = (source: FetchSource): FetchCachedResult<T> => ({ value: storedValue as T, source, bytes: stored as Uint8Array, etag: envelopeEtag(stored as Uint8Array) })
  const headers = new Headers(init?.headers)
  headers.set('Accept', STOWAGE_MEDIA_TYPE)
  if (stored !== undefined) headers.set('If-None-Match', envelopeEtag(stored))
  let response: Response
  try {
    response = await fetchFn(url, { ...init, headers })
  } catch (e) {
    if (stored !== undefined) return fromStore('offline')
    throw new StowageError(StowageErrorCode.STORE_ERROR, `fetching ${url} failed and nothing is cached`, { cause: e })
  }
  if (response.status === 304 && stored !== undefined) return fromStore('revalidated')
  if (!response.ok) {
    await response.body?.cancel().catch(() => {})
    if (stored !== undefined) return fromStore('stale')
    throw new StowageError(StowageErrorCode.STORE_ERROR, `fetching ${url} failed: HTTP ${response.status} ${response.statusText}`.trimEnd(), { cause: response })
  }
  const bytes = await readBody(response, limit, url)
  // Opened before it is kept: bytes this cache cannot use are never stored.
  let value: T
  let kept: Uint8Array
  try {
    // What acceptBytes keeps: its own withoutTags then finds nothing left to strip.
    kept = withoutTags(bytes)
    value = (await cache.acceptBytes(key, kept, { ttl })) as T
  } catch (e) {
    // Same code, with where the bytes came from (an HTML fallback page, a JSON route…).
    if (!StowageError.isInstance(e) || e.code === StowageErrorCode.STORE_ERROR) throw e
    const type = response.headers.get('Content-Type') ?? 'no Content-Type'
    throw new StowageError(e.code, `${url} answered ${bytes.length} bytes of ${type} that this cache cannot take: ${e.message}`, { cause: e })
  }
  return { value, source: 'network', bytes: kept, etag: envelopeEtag(kept) }
}

/**
 * {@link fetchCachedWithInfo}, returning only the value.
 * @throws {StowageError} as {@link fetchCachedWithInfo}.
 */
export async function fetchCached<T = unknown>(url: string, options: FetchCachedOptions): Promise<T> {
  return (await fetchCachedWithInfo<T>(url, options)).value
}
