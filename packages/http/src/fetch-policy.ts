// fetchCached's caching policy, apart from the transport (fetch-cached.ts): which responses may be
// kept, for how long a kept copy may stand in for the server, and what a status means for it. Pure
// functions of the request and response headers, so every rule has a unit test of its own.
//
// The rules are RFC 9111's for a private cache, with three choices a browser shared by several
// people needs (a handed-on laptop, a family computer): a response bound to who asked (`private`,
// `Vary: Cookie` or `Authorization`, a request carrying `Authorization` or cookies sent to another
// origin) is kept only inside an app-given per-user scope; a kept copy answers only for a failed
// request or a 500/502/503/504 (stale-if-error, RFC 5861 §4), never for a 4xx; 401/403/404/410
// drop it. `http-cache-semantics` was weighed and not used: it keeps a policy object beside each
// entry (a second record here), and it is 2.8 KB minified and gzipped against 0.9 KB for these rules.
import type { HttpValidator } from '@stowage/core'

/** The Cache-Control directives of one header, names lower-cased; a directive without a value is `true`. */
export type CacheControl = ReadonlyMap<string, string | true>

/** Parses a `Cache-Control` header (quoted values unquoted); `null` is no directive. */
export function parseCacheControl(header: string | null): CacheControl {
  const directives = new Map<string, string | true>()
  if (header === null) return directives
  for (const part of header.split(',')) {
    const [name = '', ...rest] = part.split('=')
    const key = name.trim().toLowerCase()
    if (key === '') continue
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1')
    directives.set(key, rest.length === 0 ? true : value)
  }
  return directives
}

// Delta-seconds past this count as this (RFC 9111 §1.2.2).
const MAX_SECONDS = 2 ** 31

// Delta-seconds (`60`) in ms; undefined when absent or not a non-negative integer.
function deltaMs(value: string | true | undefined): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined
  return Math.min(Number(value), MAX_SECONDS) * 1000
}

// A delta-seconds directive (`max-age=60`) in ms; undefined when absent or not a number.
function seconds(directives: CacheControl, name: string): number | undefined {
  return deltaMs(directives.get(name))
}

// The `Age` header in ms (0 when absent or not delta-seconds); a list (the header sent twice)
// counts by its first member (RFC 9111 §5.1).
function age(headers: Headers): number {
  return deltaMs(headers.get('Age')?.split(',')[0]?.trim()) ?? 0
}

/** The request headers a response may name in `Vary` and still be kept without a scope: the same for every user of this client. */
const SAME_FOR_EVERY_USER = new Set(['accept', 'accept-encoding', 'origin'])
/** The request headers that identify who asked: a response that varies on them is kept only in a scope. */
const WHO_ASKED = new Set(['cookie', 'authorization'])

/** What fetchCached knows of the request when it decides. */
export interface PolicyRequest {
  /** The request's headers as sent (the app's `init.headers`; cookies are the browser's and not seen). */
  readonly headers: Headers
  /** `init.credentials`. */
  readonly credentials?: RequestCredentials
  /** Whether the URL is on another origin than the page's (false outside a browser). */
  readonly crossOrigin: boolean
  /** Whether the app gave a per-user scope (`scope`). */
  readonly scoped: boolean
  /** The app's `staleIfError`, in ms, when it gave one. */
  readonly staleIfError?: number
  /** The app's `ttl`, in ms, when it gave one. */
  readonly ttl?: number
  /** The cache's own TTL (`cache.ttl`), in ms, when it has one: without the app's `ttl`, no response keeps a copy longer. */
  readonly cacheTtl?: number
  /** `init.cache`, the Fetch API's cache mode, when the app gave one. */
  readonly cache?: RequestCache
}

/**
 * Whether to keep a response, and for how long: `ttl` undefined is the cache's own TTL; `by` says
 * whose word the TTL is (the app's `staleIfError` or `ttl`; the response's `stale-if-error`, capped
 * by `ttl`; or the cache's default).
 */
export type KeepDecision = { readonly keep: true; readonly ttl: number | undefined; readonly by: 'app' | 'response' | 'cache' } | { readonly keep: false; readonly why: string }

/**
 * Whether a 200 response may be kept, and for how long a kept copy may answer for the server.
 * Not kept: `no-store` (request or response), `Vary: *`, `Vary` on a request header other than
 * Accept, Accept-Encoding, Origin, Cookie and Authorization; without a scope also `private`,
 * `Vary: Cookie`/`Authorization`, a request with `Authorization` or `Cookie`, and cookies sent to
 * another origin (`credentials: 'include'`); `must-revalidate`/`proxy-revalidate` and `no-cache`
 * (unqualified) unless the app gave `staleIfError`. Kept for: `staleIfError` when the app gave it; else `max-age` + `stale-if-error`
 * less the response's `Age` when it names `stale-if-error` (at most `ttl`, else the cache's TTL;
 * not kept when that is 0 or less); else `ttl`. A request with the Fetch cache mode `no-store` is not kept either.
 */
export function keepDecision(request: PolicyRequest, response: { readonly headers: Headers }): KeepDecision {
  const refuse = (why: string): KeepDecision => ({ keep: false, why })
  const asked = parseCacheControl(request.headers.get('Cache-Control'))
  const said = parseCacheControl(response.headers.get('Cache-Control'))
  if (asked.has('no-store') || said.has('no-store')) return refuse('Cache-Control: no-store')
  if (request.cache === 'no-store') return refuse("a request with cache: 'no-store'")
  const vary = (response.headers.get('Vary') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '')
  if (vary.includes('*')) return refuse('Vary: *')
  const other = vary.find((name) => !SAME_FOR_EVERY_USER.has(name) && !WHO_ASKED.has(name))
  if (other !== undefined) return refuse(`Vary: ${other} (a request header fetchCached does not keep)`)
  if (!request.scoped) {
    if (said.has('private')) return refuse('Cache-Control: private without a scope')
    const who = vary.find((name) => WHO_ASKED.has(name))
    if (who !== undefined) return refuse(`Vary: ${who} without a scope`)
    // A browser sets Cookie itself (never from init.headers); on a server rendering for visitors it
    // comes from the app, and says who asked as much as Authorization does.
    if (request.headers.has('Authorization')) return refuse('a request with Authorization without a scope')
    if (request.headers.has('Cookie')) return refuse('a request with Cookie without a scope')
    if (request.crossOrigin && request.credentials === 'include') return refuse('credentials sent to another origin without a scope')
  }
  if (request.staleIfError !== undefined) return { keep: true, ttl: request.staleIfError, by: 'app' }
  if (said.has('must-revalidate') || said.has('proxy-revalidate')) return refuse('Cache-Control: must-revalidate (a copy could never stand in for the server)')
  // no-cache forbids using the response without the server's word (RFC 9111 §5.2.2.4, §4.2.4),
  // and a kept copy here is one that may answer when the server cannot; stale-if-error does not
  // lift it. Qualified (no-cache="Set-Cookie") it names header fields, which are not kept.
  if (said.get('no-cache') === true) return refuse('Cache-Control: no-cache (a copy could never stand in for the server: send max-age=0 instead)')
  const staleIfError = seconds(said, 'stale-if-error')
  if (staleIfError === undefined) return { keep: true, ttl: request.ttl, by: request.ttl === undefined ? 'cache' : 'app' }
  // The window runs from when the response was made: what it spent in caches on the way (`Age`,
  // RFC 9111 §4.2.3) is gone from it.
  const window = (seconds(said, 'max-age') ?? 0) + staleIfError - age(response.headers)
  if (window <= 0) return refuse('max-age + stale-if-error, less Age, is 0 or less')
  return { keep: true, ttl: Math.min(window, request.ttl ?? request.cacheTtl ?? Infinity), by: 'response' }
}

/**
 * Whether a kept copy may answer for this request when the server cannot (a failure, a 5xx). Not
 * when the request asks for the server's word: `Cache-Control: no-cache` or `max-age=0` (RFC 9111
 * §5.2.1), `Pragma: no-cache` without `Cache-Control` (§5.4), or a Fetch cache mode of `no-cache`,
 * `reload` or `no-store`.
 */
export function mayStandIn(request: Pick<PolicyRequest, 'headers' | 'cache'>): boolean {
  if (request.cache === 'no-cache' || request.cache === 'reload' || request.cache === 'no-store') return false
  const header = request.headers.get('Cache-Control')
  if (header === null) return !parseCacheControl(request.headers.get('Pragma')).has('no-cache')
  const asked = parseCacheControl(header)
  return !asked.has('no-cache') && seconds(asked, 'max-age') !== 0
}

/**
 * Whether a 304 speaks for the copy revalidated with `validator` (RFC 9111 §4.3.4): yes when it
 * names no ETag; when it names one, only the copy's own (a strong ETag the same, a weak one the
 * same opaque tag), never for a copy revalidated by its Last-Modified or with none.
 */
export function speaksFor(response: { readonly headers: Headers }, validator: HttpValidator | undefined): boolean {
  const etag = response.headers.get('ETag')?.trim()
  if (etag === undefined) return true
  if (validator?.kind !== 'etag') return false
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag)
  return etag.startsWith('W/') ? opaque(etag) === opaque(validator.value) : etag === validator.value
}

/**
 * What an answer other than 200 or 304 does with a kept copy: `stale` serves it (500, 502, 503,
 * 504: stale-if-error, RFC 5861 §4), `drop` deletes it and rejects (401, 403, 404, 410: the server
 * says it is no longer this client's to see), `reject` rejects and keeps it (any other status).
 */
export function onErrorStatus(status: number): 'stale' | 'drop' | 'reject' {
  if (status === 500 || status === 502 || status === 503 || status === 504) return 'stale'
  if (status === 401 || status === 403 || status === 404 || status === 410) return 'drop'
  return 'reject'
}

/** Whether two URLs (relative ones resolved against `base`) are on different origins; URLs that do not parse count as different. */
export function crossOrigin(a: string, b: string, base?: string): boolean {
  try {
    return new URL(a, base).origin !== new URL(b, base).origin
  } catch {
    return true
  }
}

/** Whether a followed redirect ended on another origin than `requested` (whose value would be planted under it). */
export function crossOriginRedirect(requested: string, response: { readonly redirected: boolean; readonly url: string }, base?: string): boolean {
  return response.redirected && response.url !== '' && crossOrigin(requested, response.url, base)
}
