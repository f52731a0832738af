// The server half: an envelope as an HTTP response, with the Fetch API's Request and Response, so
// it runs in Node's fetch servers, Fastify, Hono, Next.js route handlers and workers alike
// (node.ts adapts it to node:http). The envelope goes out as it is stored; JSON only to clients
// that ask for it.
import { createCodec, withoutTags, type Cache, type Codec } from '@stowage/core'
import { envelopeEtag, matchesEtag } from './etag.js'
import { toJson } from './json.js'
import { STOWAGE_MEDIA_TYPE } from './media-type.js'
import { prefersJson } from './negotiate.js'

/** What a response needs of a request: a Fetch `Request` has it. */
export interface EnvelopeRequest {
  readonly method: string
  readonly headers: Headers
}

/** Options of {@link envelopeResponse}. Every field is optional. */
export interface ServeOptions {
  /** The `Cache-Control` header. Defaults to `'no-cache'` ({@link DEFAULT_CACHE_CONTROL}): clients keep the bytes and revalidate, and a 304 is cheap. */
  readonly cacheControl?: string
  /** Decodes the envelope for clients that ask for JSON. Defaults to the cache's codec in {@link serveCached}, else a default codec made on demand. */
  readonly codec?: Codec
}

/** Default of {@link ServeOptions.cacheControl}. */
export const DEFAULT_CACHE_CONTROL = 'no-cache'

const utf8 = new TextEncoder()
let defaultCodec: Codec | undefined

/**
 * The response for an envelope: `200` with the envelope as it is stored (`application/vnd.stowage`,
 * a strong ETag computed from it, `Vary: Accept`), `304` when `If-None-Match` names that ETag,
 * JSON when the client's `Accept` prefers `application/json` (with its own ETag), `404` without
 * an envelope, `405` for methods other than GET and HEAD. A tag stamp is left out (`withoutTags`).
 *
 * @throws {StowageError} the decode codes when `envelope` is not a valid envelope.
 */
export async function envelopeResponse(request: EnvelopeRequest, envelope: Uint8Array | undefined, options: ServeOptions = {}): Promise<Response> {
  const cacheControl = options.cacheControl ?? DEFAULT_CACHE_CONTROL
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } })
  if (envelope === undefined) return new Response(null, { status: 404, headers: { Vary: 'Accept', 'Cache-Control': cacheControl } })
  const bytes = withoutTags(envelope)
  const json = prefersJson(request.headers.get('Accept'))
  const etag = json ? envelopeEtag(bytes).replace(/"$/, '-json"') : envelopeEtag(bytes)
  const headers: Record<string, string> = { ETag: etag, Vary: 'Accept', 'Cache-Control': cacheControl }
  if (matchesEtag(request.headers.get('If-None-Match'), etag)) return new Response(null, { status: 304, headers })
  let body: Uint8Array = bytes
  if (json) {
    const codec = options.codec ?? (defaultCodec ??= createCodec())
    body = utf8.encode(toJson(await codec.decodeAsync(bytes)))
  }
  headers['Content-Type'] = json ? 'application/json; charset=utf-8' : STOWAGE_MEDIA_TYPE
  headers['Content-Length'] = String(body.length)
  return new Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), { status: 200, headers })
}

/** Options of {@link serveCached}. */
export interface ServeCachedOptions extends ServeOptions {
  /** The cache the entry lives in. */
  // Any cache, typed by schemas or not: keys here are URLs or route parameters.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly cache: Cache<any>
  /** The entry's key. */
  readonly key: string
  /** Loads the value on a miss (through `cache.getOrSet`, so concurrent misses load once). Without it a miss is a 404. */
  readonly load?: () => unknown
  /** TTL of a loaded entry, in ms. Defaults to the cache's. */
  readonly ttl?: number
}

/**
 * Serves a cache entry: its envelope exactly as the store holds it (no decode, no re-encode), or
 * on a miss the value `load` gives, stored first. See {@link envelopeResponse} for the responses.
 * @throws {StowageError} as `cache.getBytes` and `cache.getOrSet`; the loader's own error.
 */
export async function serveCached(request: EnvelopeRequest, options: ServeCachedOptions): Promise<Response> {
  const { cache, key, load, ttl } = options
  let bytes = await cache.getBytes(key)
  if (bytes === undefined && load !== undefined && (request.method === 'GET' || request.method === 'HEAD')) {
    const value = await cache.getOrSet(key, load, { ttl })
    // Read back as stored; if the store could not keep it, the value is encoded for this response.
    bytes = (await cache.getBytes(key)) ?? (await cache.codec.encodeAsync(value, { schemaVersion: cache.version === 0 ? undefined : cache.version }))
  }
  return envelopeResponse(request, bytes, { ...options, codec: options.codec ?? cache.codec })
}
