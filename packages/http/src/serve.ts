// The server half: an envelope as an HTTP response, with the Fetch API's Request and Response, so
// it runs in Node's fetch servers, Fastify, Hono, Next.js route handlers and workers alike
// (node.ts adapts it to node:http). The envelope goes out as it is stored; JSON only to clients
// that ask for it.
import { checkOptionNames, createCodec, inspect, StowageError, StowageErrorCode, withoutTags, type Cache, type Codec } from '@stowage/core'
import { DICTIONARY_HEADER } from './dictionaries.js'
import { envelopeEtag, matchesEtag } from './etag.js'
import { DEFAULT_MAX_JSON_BYTES, jsonOf, knownJsonOf, MAX_JSON_BYTES_LIMIT } from './json-renders.js'
import { STOWAGE_MEDIA_TYPE } from './media-type.js'
import { prefersJson } from './negotiate.js'

/** What a response needs of a request: a Fetch `Request` has it. */
export interface EnvelopeRequest {
  readonly method: string
  readonly headers: Headers
}

/** Options of {@link envelopeResponse}. Every field is optional. */
export interface ServeOptions {
  /**
   * The `Cache-Control` header. Defaults to `'max-age=0'` ({@link DEFAULT_CACHE_CONTROL}): clients
   * keep the bytes and revalidate on every request (a 304 is cheap), and a kept copy may answer
   * when the server cannot be reached, which `no-cache` forbids (RFC 9111 §4.2.4); add
   * `stale-if-error=<seconds>` to bound how long.
   */
  readonly cacheControl?: string
  /** Decodes the envelope for clients that ask for JSON. Defaults to the cache's codec in {@link serveCached}, else a default codec made on demand. */
  readonly codec?: Codec
  /**
   * Request headers the response depends on besides `Accept`, added to `Vary` (`['Cookie']` for a
   * per-user route: `fetchCached` then keeps it only in a per-user scope). Defaults to none.
   */
  readonly vary?: readonly string[]
  /**
   * The largest JSON answer, in bytes, from 1 to {@link MAX_JSON_BYTES_LIMIT} (2 MiB). A client
   * that asks for JSON gets `406 Not Acceptable` instead when the entry's MessagePack payload is
   * longer, when it holds more than half as many array elements and object properties, or when its
   * JSON is longer (the envelope is still served to clients that accept it). Defaults to 256 KiB
   * ({@link DEFAULT_MAX_JSON_BYTES}).
   */
  readonly maxJsonBytes?: number
  /**
   * Where this server serves dictionaries (see {@link serveDictionary}): the URL of dictionary `id`
   * (8 hex digits). An envelope compressed with a dictionary then goes out with a
   * `Stowage-Dictionary` header naming it, and `fetchCached` fetches the dictionary when it lacks
   * it. Cross-origin clients need the header exposed (`Access-Control-Expose-Headers`). Defaults to
   * none: clients must have the dictionary already.
   */
  readonly dictionaryUrl?: (id: string) => string
}

/** Default of {@link ServeOptions.cacheControl}. */
export const DEFAULT_CACHE_CONTROL = 'max-age=0'

let defaultCodec: Codec | undefined

// The names of ServeOptions, and of ServeCachedOptions: anything else is a misspelling (checkOptionNames).
const RESPONSE_OPTION_NAMES = ['cacheControl', 'codec', 'vary', 'maxJsonBytes', 'dictionaryUrl'] as const satisfies ReadonlyArray<keyof ServeOptions>
const SERVE_OPTION_NAMES = [...RESPONSE_OPTION_NAMES, 'cache', 'key', 'load', 'ttl', 'staleFor', 'grace'] as const satisfies ReadonlyArray<keyof ServeCachedOptions>

/**
 * The response for an envelope: `200` with the envelope as it is stored (`application/vnd.stowage`,
 * a strong ETag hashed from it (SHA-256: {@link envelopeEtag}), `Vary: Accept` and the `vary` headers), `304` when `If-None-Match` names that ETag,
 * JSON when the client's `Accept` prefers `application/json` (with its own ETag; rendered once per
 * envelope and codec and kept in a bounded book; `406` past `maxJsonBytes`; HEAD never renders it
 * and so sends `Content-Length` only for a JSON already rendered), `404` without an envelope, `405`
 * for methods other than GET and HEAD. A tag stamp is left out (`withoutTags`). The envelope is
 * not decoded to be sent: bytes damaged in the store go out as they are, and the client's decode
 * refuses them (CHECKSUM_MISMATCH).
 *
 * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT when `envelope` is not an
 * envelope; the decode codes when JSON is rendered from a damaged one; INVALID_ARGUMENT for a
 * `maxJsonBytes` out of range.
 */
export async function envelopeResponse(request: EnvelopeRequest, envelope: Uint8Array | undefined, options: ServeOptions = {}): Promise<Response> {
  checkOptionNames('envelopeResponse', options, RESPONSE_OPTION_NAMES)
  const cacheControl = options.cacheControl ?? DEFAULT_CACHE_CONTROL
  const vary = ['Accept', ...(options.vary ?? [])].join(', ')
  const maxJsonBytes = checkMaxJsonBytes(options.maxJsonBytes)
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } })
  if (envelope === undefined) return new Response(null, { status: 404, headers: { Vary: vary, 'Cache-Control': cacheControl } })
  const bytes = withoutTags(envelope)
  const json = prefersJson(request.headers.get('Accept'))
  const own = await envelopeEtag(bytes)
  const etag = json ? own.replace(/"$/, '-json"') : own
  const headers: Record<string, string> = { ETag: etag, Vary: vary, 'Cache-Control': cacheControl }
  if (matchesEtag(request.headers.get('If-None-Match'), etag)) return new Response(null, { status: 304, headers })
  if (!json) {
    const id = options.dictionaryUrl === undefined ? undefined : inspect(bytes).dictionaryId
    if (id !== undefined) headers[DICTIONARY_HEADER] = options.dictionaryUrl!(id.toString(16).padStart(8, '0'))
    return ok(request, bytes, STOWAGE_MEDIA_TYPE, headers)
  }
  const codec = options.codec ?? (defaultCodec ??= createCodec())
  const body = request.method === 'HEAD' ? knownJsonOf(codec, etag, bytes, maxJsonBytes) : await jsonOf(codec, etag, bytes, maxJsonBytes)
  if (body === 'over' || (body === undefined && request.method === 'GET')) return new Response(null, { status: 406, headers: { Vary: vary, 'Cache-Control': cacheControl } })
  return ok(request, body, 'application/json; charset=utf-8', headers)
}

// A 200 with `body`, or for HEAD its headers only (without Content-Length when the body was not made).
function ok(request: EnvelopeRequest, body: Uint8Array | undefined, type: string, headers: Record<string, string>): Response {
  headers['Content-Type'] = type
  if (body !== undefined) headers['Content-Length'] = String(body.length)
  return new Response(request.method === 'HEAD' || body === undefined ? null : (body as Uint8Array<ArrayBuffer>), { status: 200, headers })
}

function checkMaxJsonBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_JSON_BYTES
  if (!Number.isInteger(value) || value < 1 || value > MAX_JSON_BYTES_LIMIT) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `maxJsonBytes must be an integer from 1 to ${MAX_JSON_BYTES_LIMIT}, not ${String(value)}`)
  }
  return value
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
  /** As `getOrSet`'s: for this many ms past `ttl` the old entry is served while one refresh (by `load`) runs. Defaults to none. */
  readonly staleFor?: number
  /** As `getOrSet`'s: past `ttl` and `staleFor`, the old entry answers when `load` fails or times out. Defaults to none. */
  readonly grace?: number
}

/**
 * Serves a cache entry: its envelope exactly as the store holds it (no decode, no re-encode), or
 * on a miss the value `load` gives, stored first. The entry follows `cache.get`'s rules (one of a
 * deleted tag is a miss); with `load` also `getOrSet`'s: an entry past its fresh time is served
 * within `staleFor` while one refresh runs, and is loaded again after. See {@link envelopeResponse}
 * for the responses.
 * @throws {StowageError} as `cache.getBytes` and `cache.getOrSet`; the loader's own error; as {@link envelopeResponse}.
 */
export async function serveCached(request: EnvelopeRequest, options: ServeCachedOptions): Promise<Response> {
  checkOptionNames('serveCached', options, SERVE_OPTION_NAMES)
  const { cache, key, load, ttl, staleFor, grace } = options
  let bytes = await cache.getBytes(key)
  const freshUntil = bytes === undefined ? undefined : inspect(bytes).freshUntil
  const fresh = bytes !== undefined && (freshUntil === undefined || freshUntil > Date.now())
  if (!fresh && load !== undefined && (request.method === 'GET' || request.method === 'HEAD')) {
    // getOrSet decides (stale: served, one refresh; past staleFor: loaded), then the bytes it left are served.
    const value = await cache.getOrSet(key, load, { ttl, staleFor, grace })
    // Read back as stored; if the store could not keep it, the value is encoded for this response.
    bytes = (await cache.getBytes(key)) ?? (await cache.codec.encodeAsync(value, { schemaVersion: cache.version === 0 ? undefined : cache.version }))
  }
  const { cacheControl, vary, maxJsonBytes, dictionaryUrl } = options
  return envelopeResponse(request, bytes, { cacheControl, vary, maxJsonBytes, dictionaryUrl, codec: options.codec ?? cache.codec })
}
