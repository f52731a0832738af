// The client half: fetch an envelope from a server that uses serve.ts (or any server that sends
// envelopes), keep it in a Cache (inflated once in browsers, so later reads decode without
// inflating in JavaScript), and revalidate it with the server's own validator, kept in the
// envelope's header (withValidator).
// What may be kept and when a kept copy may answer is fetch-policy.ts's; the exchange itself (a
// deadline, a bounded body) is fetch-transport.ts's.
import { checkOptionNames, createCodec, dictionaryId, inspect, StowageError, StowageErrorCode, withoutTags, withValidator, type Cache, type CacheClaim, type Codec, type HttpValidator } from '@stowage/core'
import { DICTIONARY_HEADER, ensureDictionary } from './dictionaries.js'
import { crossOrigin, crossOriginRedirect, keepDecision, mayStandIn, onErrorStatus, parseCacheControl, speaksFor } from './fetch-policy.js'
import { baseUrl, isRedirect, online, pageUrl, readBody, startDeadline, type Deadline } from './fetch-transport.js'
import { STOWAGE_MEDIA_TYPE } from './media-type.js'
import { isScoped, scopedCache } from './scope.js'
import { hintStorage, sendable, ValidatorHints, type HintStorage } from './validator-hints.js'

/** Default of {@link FetchCachedOptions.timeout}: 30 s for the headers and the body together. */
export const DEFAULT_FETCH_TIMEOUT = 30_000

/** Options of {@link fetchCached}. */
export interface FetchCachedOptions {
  /** The cache the received bytes go into (typically over `createIdbStore`). */
  // Any cache, typed by schemas or not: keys here are URLs or route parameters.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly cache: Cache<any>
  /**
   * The cache key. Defaults to the URL; one relative to the page (`profile`, `../me`, `?page=2`)
   * resolved as `fetch` resolves it (against `document.baseURI`, else `location`, any scheme): `profile` asked from `/users/ada/` and from
   * `/users/bob/` is two keys, never one copy. An absolute URL or a path from the root (`/api/me`)
   * is the key as written.
   */
  readonly key?: string
  /**
   * Whose entry this is: the app sets it at sign-in (a user id, or a hash of one: letters, digits,
   * `_`, `-`, `.`), and the entry lives in that user's partition of the cache (`scopedCache`), which
   * `signOut` wipes. Responses bound to who asked (`Cache-Control: private`, `Vary: Cookie` or
   * `Authorization`, a request with `Authorization`) are kept only in a scope. Defaults to none:
   * the entry is shared by everyone who uses this browser profile.
   */
  readonly scope?: string
  /**
   * TTL of the stored entry, in ms: how long a kept copy is kept, and so may answer when the
   * server cannot. A response's `stale-if-error` shortens it. Defaults to the cache's.
   */
  readonly ttl?: number
  /**
   * The app's opt-in to serve a kept copy for this long (ms after it was received) when the
   * request fails or the server answers 500/502/503/504, whatever the response's `Cache-Control`
   * says (`must-revalidate`, `stale-if-error`); never for `no-store`. Defaults to none: the
   * response's own directives decide (see the README's caching rules).
   */
  readonly staleIfError?: number
  /** The longest wait for the headers and the body together, in ms (`Infinity`: none). Defaults to {@link DEFAULT_FETCH_TIMEOUT} (30 s). */
  readonly timeout?: number
  /**
   * Extra request options (headers are merged, the app's own `If-None-Match` and
   * `If-Modified-Since` dropped; `signal` is joined to the timeout). `method` may only be GET: fetchCached keeps answers by URL, which only a GET's is. Defaults to none.
   */
  readonly init?: RequestInit
  /** The fetch function. Defaults to `globalThis.fetch`. */
  readonly fetch?: typeof globalThis.fetch
  /**
   * Keep a deflated envelope inflated (`codec.inflateEnvelopeAsync`), with the server's validator
   * in its header so that revalidation still works: later reads then decode without inflating,
   * which browsers do in JavaScript (fflate) on every read otherwise. Costs disk: the envelope is
   * kept at its MessagePack size. Defaults to `true` in browsers and workers, `false` elsewhere.
   */
  readonly inflate?: boolean
  /**
   * The largest response body read, in bytes: a larger `Content-Length` is refused before reading,
   * a body without one is cut off as soon as it passes. Defaults to the codec's `maxBytes` plus
   * 1 KiB for the envelope's header.
   */
  readonly maxBytes?: number
  /**
   * Where fetchCached remembers the validator of the copy it kept under each key (by the cache's
   * namespace and the key), so that the next call sends its request at once, with that validator,
   * instead of after the store has answered: on a first
   * screen, opening an IndexedDB database takes 5–25 ms. A first visit (nothing kept yet in the
   * namespace) sends at once without one; a key it knows nothing of in a namespace it has kept
   * copies in waits for the store. A 304 counts only as the answer to the stored copy's own
   * validator; a wrong hint costs one request more or a full answer, never a wrong value. Not
   * used for a user's partition (`scope`, or a cache `scopedCache` made: a user's requests never
   * carry what another's learnt, and nothing of theirs stays in storage) nor with a `no-store`
   * request; an answer not kept forgets its key's hint. `false`: every request waits for the store. Defaults to `localStorage` where there is
   * one (one item, `stowage:fetch-validators`, at most 256 keys and 64 KiB), else `false`.
   */
  readonly validatorHints?: HintStorage | false
}

/** Where a {@link fetchCached} value came from. */
export type FetchSource = 'network' | 'revalidated' | 'offline' | 'stale'

/** A value with how it was obtained. */
export interface FetchCachedResult<T> {
  readonly value: T
  /** `network`: new bytes (kept when the caching rules allow); `revalidated`: 304, the stored bytes; `offline`: the request failed or timed out, the stored bytes; `stale`: the server answered 500/502/503/504, the stored bytes. */
  readonly source: FetchSource
  /** The envelope the value was decoded from, exactly as stored (or as received, when not kept). */
  readonly bytes: Uint8Array
  /** The server's ETag for the bytes (what revalidating them sends in `If-None-Match`); undefined when the server sent none. */
  readonly etag: string | undefined
  /** Whether the bytes are in the cache now. */
  readonly kept: boolean
  /**
   * What went wrong on the way, when something did: the failure a stored copy answers for
   * (`offline`: STORE_ERROR or TIMEOUT, naming a likely CORS refusal when the browser is online;
   * `stale`: STORE_ERROR with the `Response` as cause), or, with `network`, a revalidation the
   * browser refused (the server does not answer the CORS preflight `If-None-Match` needs) that was
   * retried without it. Undefined when nothing did.
   */
  readonly problem?: StowageError
}

const HEADER_ALLOWANCE = 1024

const FETCH_OPTION_NAMES = ['cache', 'key', 'scope', 'ttl', 'staleIfError', 'timeout', 'init', 'fetch', 'inflate', 'maxBytes', 'validatorHints'] as const satisfies ReadonlyArray<keyof FetchCachedOptions>

type Answered = { readonly response: Response; readonly bytes?: Uint8Array; readonly problem?: StowageError }
type Exchange = Answered | { readonly failure: StowageError }

/**
 * Fetches a Stowage envelope over HTTP and keeps the received bytes in the cache as they are (no
 * re-encode), through the Cache: schema version and `migrate`, the key's schema, stats and events
 * apply. With a usable stored copy it revalidates (`If-None-Match` with the copy's ETag; a 304
 * keeps it). The caching rules (README, "Caching rules"): `no-store`, `Vary` and `private` are
 * honoured; a stored copy answers only for a failed request or a 500/502/503/504; a 401, 403, 404
 * or 410 deletes it and rejects; a redirect to another origin is refused. A damaged or unusable
 * stored copy counts as none.
 *
 * @returns the value, where it came from, the envelope, its ETag, whether it is kept and what went wrong.
 * @throws {StowageError} STORE_ERROR when the request fails, the server answers another error (its
 *   `Response` is the cause: `cause.status`) or redirects to another origin, and no stored copy may
 *   answer; TIMEOUT past `timeout` with no stored copy; LIMIT_EXCEEDED for a body over `maxBytes`;
 *   INVALID_ARGUMENT for a bad `scope` or key, or an `init.method` other than GET; BAD_MAGIC and the other decode codes,
 *   UNSUPPORTED_VERSION, SCHEMA_MISMATCH when the response is not an envelope this cache can use.
 */
export async function fetchCachedWithInfo<T = unknown>(url: string, options: FetchCachedOptions): Promise<FetchCachedResult<T>> {
  // A misspelt `scope` would keep a user's answers where the next user finds them.
  checkOptionNames('fetchCached', options, FETCH_OPTION_NAMES)
  // What fetch resolves a relative URL against (a <base href>, any scheme): the default key and the cross-origin checks go by it.
  const base = baseUrl()
  const key = options.key ?? keyOf(url, base)
  // Another method's answer is not what a GET of the URL returns (RFC 9111 §4): never kept under it, nor answered for by a kept copy.
  const method = options.init?.method?.toUpperCase() ?? 'GET'
  if (method !== 'GET') throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `fetchCached keeps GET answers only, not ${method}: use fetch (and cache.delete(url) when the request changes what a GET of it returns)`)
  const cache = options.scope === undefined ? options.cache : scopedCache(options.cache, options.scope)
  // Taken before anything is read or requested: a set, delete or clear (a sign-out) of the key
  // that comes while the request is out means its answer is not stored (acceptBytes checks).
  const claim = cache.claim(key)
  try {
    return await fetchClaimed<T>(url, options, cache, key, claim, base)
  } finally {
    claim.end()
  }
}

async function fetchClaimed<T>(
  url: string,
  options: FetchCachedOptions,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  cache: Cache<any>,
  key: string,
  claim: CacheClaim,
  base: string | undefined,
): Promise<FetchCachedResult<T>> {
  const { init } = options
  const limit = options.maxBytes ?? cache.codec.options.maxBytes + HEADER_ALLOWANCE
  // The URL as fetch resolves it (a <base href> may point elsewhere), against the page's own origin.
  const page = pageUrl()
  const requestCrossOrigin = page !== undefined && crossOrigin(url, page, base)
  // A request with no-store: no copy answers for it or is kept after it, and an older one goes (README).
  const noStore = parseCacheControl(new Headers(init?.headers).get('Cache-Control')).has('no-store') || init?.cache === 'no-store'
  // One with the Fetch cache mode reload (or no-store) is asked without a validator.
  const reload = noStore || init?.cache === 'reload'
  const hints = validatorHints(options, cache)
  // What the hints know of the key; a no-store request answers from nothing and waits for the delete.
  const guess = reload ? undefined : hints?.guess(cache.namespace, key)
  if (noStore) await cache.delete(key)
  // The deadline runs from when the request leaves.
  const begin = () => {
    const deadline = startDeadline(options.timeout ?? DEFAULT_FETCH_TIMEOUT, init?.signal)
    return { deadline, limit, crossOrigin: requestCrossOrigin }
  }
  // When the hints know of the key, the request leaves now, with the validator of the copy they
  // say is kept (or none), while the store looks for the copy; else after the store has answered.
  let context = guess === undefined ? undefined : begin()
  const early = context === undefined ? undefined : exchangeWith(url, options, guess?.validator, context)
  // Awaited below; handled now so that a body over the limit, refused while the store is still
  // looking, is not an unhandled rejection meanwhile.
  early?.catch(() => {})
  let found: Uint8Array | undefined
  try {
    found = noStore ? undefined : await cache.getBytes(key)
  } catch (e) {
    context?.deadline.abandon()
    throw e
  }
  context ??= begin()
  const { deadline } = context
  let storedValue: unknown
  let exchange: Exchange
  let revalidated = false
  try {
    // Else the request goes out first and the stored copy is decoded while it is out: a reload
    // pays the decode and the round trip side by side, not one after the other.
    const validator = found === undefined || reload ? undefined : revalidator(found)
    // Opened as get would (a hit or a miss in the stats); a copy the cache cannot use counts as none.
    ;[exchange, storedValue] = await Promise.all([early ?? exchangeWith(url, options, validator, context), cache.openBytes(key, found)])
    let sent = early === undefined ? validator : guess?.validator
    const usable = storedValue === undefined ? undefined : validator
    // A 304 says the stored copy is current only as the answer to the copy's own validator: one
    // to a hint the copy does not have, or to the validator of a copy that cannot be used, is
    // asked again, with the copy's validator when it has a usable one.
    if (notModified(exchange) && !sameValidator(sent, usable)) {
      sent = usable
      exchange = await exchangeWith(url, options, sent, context)
    }
    // One that names another representation than the copy's (its own ETag, RFC 9111 §4.3.4) does
    // not make the copy current: asked again without a validator, the 200 replaces the copy.
    if (notModified(exchange) && !speaksFor(exchange.response, sent)) {
      sent = undefined
      exchange = await exchangeWith(url, options, undefined, context)
    }
    revalidated = notModified(exchange) && sameValidator(sent, usable)
  } catch (e) {
    deadline.abandon()
    throw e
  } finally {
    deadline.clear()
  }
  const stored = storedValue === undefined ? undefined : found
  const result = await answer<T>(url, options, cache, key, claim, { exchange, found, stored, storedValue, base, requestCrossOrigin, deadline, revalidated })
  // What the next call will find stored: the copy kept now or still kept, or else nothing known
  // (it waits for the store). A call that failed leaves the hint as it was.
  // An answer not kept leaves nothing behind: one bound to who asked (private, a request with
  // Authorization) would leave the user's URL in storage that outlives their sign-out.
  if (result.kept) hints?.remember(cache.namespace, key, revalidator(result.bytes))
  else hints?.forget(cache.namespace, key)
  return result
}

// What came of the exchange: the stored copy, or the response, kept when the caching rules allow.
async function answer<T>(
  url: string,
  options: FetchCachedOptions,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  cache: Cache<any>,
  key: string,
  claim: CacheClaim,
  got: { exchange: Exchange; found: Uint8Array | undefined; stored: Uint8Array | undefined; storedValue: unknown; base: string | undefined; requestCrossOrigin: boolean; deadline: Deadline; revalidated: boolean },
): Promise<FetchCachedResult<T>> {
  const { init } = options
  const { exchange, found, stored, storedValue, base, requestCrossOrigin, deadline, revalidated } = got
  // The stored copy answers; it is still kept unless a write, delete or clear (a sign-out) of the key came meanwhile.
  const fromStore = (source: FetchSource, problem?: StowageError): FetchCachedResult<T> => ({ value: storedValue as T, source, bytes: stored!, etag: etagOf(stored!), kept: !claim.superseded, problem })
  const request = { headers: new Headers(init?.headers), credentials: init?.credentials, crossOrigin: requestCrossOrigin, scoped: options.scope !== undefined, staleIfError: options.staleIfError, ttl: options.ttl, cacheTtl: cache.ttl, cache: init?.cache }
  // A request that asks for the server's word (no-cache, max-age=0, …): no copy answers for a failure.
  const standIn = mayStandIn(request)
  // The failure, saying so when a kept copy could have answered but the request asked for the server's word.
  const unanswered = (failure: StowageError): StowageError =>
    stored === undefined || standIn ? failure : new StowageError(failure.code, `${failure.message}; a kept copy was not used, as the request asks for the server's word (no-cache, max-age=0, Pragma: no-cache or its cache mode)`, { cause: failure.cause })
  if ('failure' in exchange) {
    if (stored !== undefined && !deadline.aborted() && standIn) return fromStore('offline', exchange.failure)
    throw deadline.aborted() ? exchange.failure : unanswered(exchange.failure)
  }
  const { response, problem } = exchange
  if (crossOriginRedirect(url, response, base)) {
    await cache.delete(key)
    throw new StowageError(StowageErrorCode.STORE_ERROR, `${url} redirected to another origin (${new URL(response.url).origin}): refused, as its answer would be kept under this URL`, { cause: response })
  }
  if (response.status === 304 && revalidated && stored !== undefined) {
    // The 304's headers stand for the stored response's from now on (RFC 9111 §4.3.4): a copy they
    // no longer allow to keep (no-store, private without a scope, must-revalidate, …) goes. One
    // without Cache-Control or Vary leaves the copy as it was; one whose stale-if-error sets how long
    // the copy may answer for the server sets it again, from now.
    const decision = keepDecision(request, response)
    if (decision.keep) {
      if (decision.by !== 'response' || claim.superseded) return fromStore('revalidated', problem)
      try {
        await cache.acceptBytes(key, stored, { ttl: decision.ttl, claim, inflate: false })
      } catch (e) {
        // The server said the copy is current: it answers, still kept as it was, and the failed write is the problem.
        const failure = StowageError.isInstance(e) ? e : new StowageError(StowageErrorCode.STORE_ERROR, `keeping ${url} for the 304's stale-if-error failed`, { cause: e })
        return fromStore('revalidated', failure)
      }
      return fromStore('revalidated', problem)
    }
    // Only the copy it revalidated: a write, delete or clear of the key meanwhile is left as it is.
    if (!claim.superseded) await cache.delete(key)
    return { ...fromStore('revalidated', problem), kept: false }
  }
  if (response.status !== 200 || exchange.bytes === undefined) {
    const failure = isRedirect(response)
      ? new StowageError(StowageErrorCode.STORE_ERROR, `fetching ${url} failed: the server redirected (HTTP ${response.status || 'redirect'}) and init.redirect is '${init?.redirect ?? 'follow'}'`, { cause: response })
      : new StowageError(StowageErrorCode.STORE_ERROR, `fetching ${url} failed: HTTP ${response.status} ${response.statusText}`.trimEnd(), { cause: response })
    const action = onErrorStatus(response.status)
    if (action === 'stale' && stored !== undefined && standIn) return fromStore('stale', failure)
    if (action === 'drop' && found !== undefined) await cache.delete(key)
    throw action === 'stale' ? unanswered(failure) : failure
  }
  const received = await named(url, response, exchange.bytes, async (b) => withoutTags(b))
  const dictionaryHeader = response.headers.get(DICTIONARY_HEADER)
  const codec = await codecFor(cache, received, dictionaryHeader === null ? undefined : new URL(dictionaryHeader, response.url || url).href, options)
  const decision = keepDecision(request, response)
  if (decision.keep) {
    const bytes = await named(url, response, received, (b) => keptForm(codec, b, response, options.inflate ?? inBrowser()))
    // Opened before it is kept: bytes this cache cannot use are never stored. Kept as they are
    // (inflate: false): keptForm chose their form, and the ETag returned is theirs.
    const value = await named(url, response, bytes, (b) => cache.acceptBytes(key, b, { ttl: decision.ttl, claim, inflate: false }) as Promise<T>)
    // A write, delete or clear (a sign-out) that came while the request was out: not stored.
    return { value, source: 'network', bytes, etag: etagOf(bytes), kept: !claim.superseded, problem }
  }
  const bytes = received
  // Not to be kept: any older copy goes too, and the value is opened as get would, without storing.
  if (found !== undefined) await cache.delete(key)
  const value = await named(url, response, bytes, (b) => openUnkept<T>(cache, key, b))
  return { value, source: 'network', bytes, etag: response.headers.get('ETag') ?? undefined, kept: false, problem }
}

// The codec that reads `received`: the cache's, or, for an envelope compressed with a dictionary
// the cache's codec lacks, one that has it, the dictionary taken from the cache's store or else
// fetched from where the server's Stowage-Dictionary header said, checked, and kept in the store
// (where the Cache finds it when it opens the bytes, and later reads too).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function codecFor(cache: Cache<any>, received: Uint8Array, dictionaryUrl: string | undefined, options: FetchCachedOptions): Promise<Codec> {
  let id: number | undefined
  try {
    id = inspect(received).dictionaryId
  } catch {
    return cache.codec // not an envelope: the decode says so
  }
  const own = cache.codec.options.dictionaries
  if (id === undefined || own.some((d) => dictionaryId(d) === id)) return cache.codec
  const dictionary = await ensureDictionary(cache.store, id, dictionaryUrl, options.fetch ?? globalThis.fetch, options.init)
  return dictionary === undefined ? cache.codec : createCodec({ ...cache.codec.options, dictionaries: [...own, dictionary] })
}

// The default key: the URL as given when it names one resource wherever it is asked from (an
// absolute URL, or a path from the origin's root: the store is the origin's own); one relative to
// the page (`profile`, `../me`, `?page=2`, `//host/x`) resolved against the page's, as fetch
// resolves it, so that one written alike on two pages never shares a copy.
function keyOf(url: string, base: string | undefined): string {
  const rooted = url.startsWith('/') && !url.startsWith('//')
  if (base === undefined || rooted || ABSOLUTE_URL.test(url)) return url
  try {
    return new URL(url, base).href
  } catch {
    return url // fetch refuses it as well
  }
}

const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:/

// The hints a call uses: none for a user's partition, whether given as `scope` (the call's cache is
// then the scope's) or as a cache scopedCache made (a user's requests never carry what another's
// learnt, and nothing of theirs is left in storage that a sign-out in another tab could miss).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function validatorHints(options: FetchCachedOptions, cache: Cache<any>): ValidatorHints | undefined {
  const storage = isScoped(cache) ? undefined : hintStorage(options.validatorHints)
  return storage === undefined ? undefined : new ValidatorHints(storage)
}

// Both there and alike.
function sameValidator(a: HttpValidator | undefined, b: HttpValidator | undefined): boolean {
  return a !== undefined && b !== undefined && a.kind === b.kind && a.value === b.value
}

function notModified(exchange: Exchange): exchange is Answered {
  return 'response' in exchange && exchange.response.status === 304
}

// Browsers and workers, where the codec inflates in JavaScript.
function inBrowser(): boolean {
  const g = globalThis as { document?: unknown; WorkerGlobalScope?: unknown }
  return g.document !== undefined || g.WorkerGlobalScope !== undefined
}

// What the server's answer is revalidated with later: the server's own validator, which the
// envelope keeps in its header. Undefined for a copy without one (it is asked for again without
// a validator) and for bytes too damaged to name one (they are then no copy at all).
function revalidator(stored: Uint8Array): HttpValidator | undefined {
  try {
    return inspect(stored).validator
  } catch {
    return undefined
  }
}

// The server's ETag kept with the bytes, if any.
function etagOf(stored: Uint8Array): string | undefined {
  const validator = revalidator(stored)
  return validator?.kind === 'etag' ? validator.value : undefined
}

// The received envelope in the form it is kept: inflated when asked, with the server's validator
// in its header (serve.ts's ETag is a hash a client does not compute; a CDN or a static file
// server sends its own).
async function keptForm(codec: Codec, received: Uint8Array, response: Response, inflate: boolean): Promise<Uint8Array> {
  const bytes = inflate ? await codec.inflateEnvelopeAsync(received) : received
  const etag = response.headers.get('ETag') ?? undefined
  const lastModified = response.headers.get('Last-Modified') ?? undefined
  const server: HttpValidator | undefined = etag !== undefined ? { kind: 'etag', value: etag } : lastModified !== undefined ? { kind: 'last-modified', value: lastModified } : undefined
  // None from this server: one the bytes came with (kept by another client) is not its word.
  if (server === undefined) return withValidator(bytes, undefined)
  // A validator a header field cannot hold (over 255 characters), or an envelope of format version 1
  // (Stowage 0.1), which has no field for one, is kept without it: the copy is then asked for
  // again without a validator, and the server answers 200.
  return sendable(server.value) && inspect(bytes).formatVersion > 1 ? withValidator(bytes, server) : bytes
}

// One exchange: with If-None-Match when there is a copy, without following redirects then (its
// ETag must not reach another origin: a redirect is asked again without it), and again without it
// when a browser refuses the cross-origin request (If-None-Match needs a CORS preflight).
async function exchangeWith(url: string, options: FetchCachedOptions, validator: HttpValidator | undefined, context: { deadline: Deadline; limit: number; crossOrigin: boolean }): Promise<Exchange> {
  const { deadline, limit, crossOrigin } = context
  const fetchFn = options.fetch ?? globalThis.fetch
  const send = async (conditional: boolean): Promise<Response> => {
    const headers = new Headers(options.init?.headers)
    headers.set('Accept', STOWAGE_MEDIA_TYPE)
    // Which copy a request revalidates is fetchCached's to say: the app's own validators would
    // make a 304 answer for a copy they are not of.
    headers.delete('If-None-Match')
    headers.delete('If-Modified-Since')
    if (conditional) headers.set(validator!.kind === 'etag' ? 'If-None-Match' : 'If-Modified-Since', validator!.value)
    // A request with the kept copy's validator never follows a redirect, even with the app's
    // `redirect: 'follow'`: asked again without it. With the app's 'error', none is followed
    // either, and the redirect is the server's answer (rejected below), not a failed request that
    // a kept copy could answer for: fetch itself would throw as it throws when offline.
    const asked = options.init?.redirect
    const manual = conditional || asked === 'error'
    const redirect = manual ? 'manual' : (asked ?? 'follow')
    // A conditional request bypasses the browser's HTTP cache (Fetch does so only in its default
    // mode): in no-cache mode it would revalidate its own older copy and hand that back as a 200.
    const cacheMode = conditional ? 'no-store' : options.init?.cache
    const response = await fetchFn(url, { ...options.init, headers, redirect, signal: deadline.signal, ...(cacheMode === undefined ? {} : { cache: cacheMode }) })
    if (!manual || !isRedirect(response)) return response
    await response.body?.cancel().catch(() => {})
    return asked === 'error' ? response : send(false)
  }
  let problem: StowageError | undefined
  try {
    let response: Response
    try {
      response = await send(validator !== undefined)
    } catch (e) {
      if (validator === undefined || !crossOrigin || deadline.signal.aborted) throw e
      response = await send(false)
      problem = new StowageError(StowageErrorCode.STORE_ERROR, `revalidating ${url} failed (the browser refused it: the server must answer the CORS preflight that If-None-Match needs, see the README's CORS section); fetched again without it`, { cause: e })
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {})
      return { response, problem }
    }
    return { response, bytes: await readBody(response, limit, url), problem }
  } catch (e) {
    if (StowageError.isInstance(e) && e.code === StowageErrorCode.LIMIT_EXCEEDED) throw e
    if (deadline.timedOut()) return { failure: new StowageError(StowageErrorCode.TIMEOUT, `fetching ${url} took more than ${options.timeout ?? DEFAULT_FETCH_TIMEOUT} ms`, { cause: e }) }
    const why = crossOrigin && online() ? ' (the browser is online: a CORS refusal, or the server is unreachable)' : ''
    return { failure: new StowageError(StowageErrorCode.STORE_ERROR, `fetching ${url} failed${why}`, { cause: e }) }
  }
}

// Runs `step` on received bytes; a decode error keeps its code and gains where the bytes came from
// (an HTML fallback page, a JSON route…).
async function named<R>(url: string, response: Response, bytes: Uint8Array, step: (bytes: Uint8Array) => Promise<R>): Promise<R> {
  try {
    return await step(bytes)
  } catch (e) {
    if (!StowageError.isInstance(e) || e.code === StowageErrorCode.STORE_ERROR) throw e
    const type = response.headers.get('Content-Type') ?? 'no Content-Type'
    throw new StowageError(e.code, `${url} answered ${bytes.length} bytes of ${type} that this cache cannot take: ${e.message}`, { cause: e })
  }
}

// The value of bytes that are not to be kept, opened as get would. openBytes says only "unusable":
// decoding again names why.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function openUnkept<T>(cache: Cache<any>, key: string, bytes: Uint8Array): Promise<T> {
  const value = (await cache.openBytes(key, bytes)) as T | undefined
  if (value !== undefined) return value
  const decoded = await cache.codec.decodeAsync(bytes)
  if (decoded === undefined) return undefined as T
  const version = inspect(bytes).schemaVersion ?? 0
  if (version !== cache.version) throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `the envelope holds schema version ${version}, which this cache (version ${cache.version}) cannot use`)
  throw new StowageError(StowageErrorCode.SCHEMA_MISMATCH, `the value does not pass the schema of ${JSON.stringify(key)}`)
}

/**
 * {@link fetchCachedWithInfo}, returning only the value.
 * @throws {StowageError} as {@link fetchCachedWithInfo}.
 */
export async function fetchCached<T = unknown>(url: string, options: FetchCachedOptions): Promise<T> {
  return (await fetchCachedWithInfo<T>(url, options)).value
}
