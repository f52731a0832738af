// Dictionaries over HTTP (issue 19): the server serves each stored dictionary by id, for good (its
// bytes never change under an id), and tells the client where, in a `Stowage-Dictionary` header on
// the envelopes that need one; the client fetches a dictionary it lacks, checks it against the id,
// and keeps it in its cache's store, where its Cache finds it from then on (IndexedDB included).
import { dictionaryKey, loadDictionary, readDictionary, StowageError, StowageErrorCode, storeDictionary, type Store } from '@stowage/core'
import type { EnvelopeRequest } from './serve.js'
import { STOWAGE_MEDIA_TYPE } from './media-type.js'

/** The response header that names where an envelope's dictionary is served. */
export const DICTIONARY_HEADER = 'Stowage-Dictionary'
/** `Cache-Control` of a dictionary: its bytes never change under its id. */
export const DICTIONARY_CACHE_CONTROL = 'public, max-age=31536000, immutable'

const ID = /^[0-9a-f]{8}$/

/** Options of {@link serveDictionary}. */
export interface ServeDictionaryOptions {
  /** The store the dictionaries live in (the cache's: `cache.store`). */
  readonly store: Store
  /** The dictionary's id as 8 lowercase hex digits (the route's parameter). */
  readonly id: string
  /**
   * Your word on which dictionaries were trained only on values every client may see: `true` for
   * every dictionary in `store`, or the ids (8 lowercase hex digits) of those that were, the others
   * answering `404` (for a store shared by a public cache and a per-user one). A dictionary holds
   * pieces of the values it was trained on, verbatim, and it is served to anyone who asks: one
   * trained on per-user values (`autoDictionary` or `stowage train` over a cache that holds them)
   * hands each user's emails and tokens to every other. Required.
   */
  readonly shared: true | readonly string[]
}

/**
 * Serves the dictionary stored under `id` (see `storeDictionary`): `200` with its envelope as
 * stored and `Cache-Control: public, max-age=31536000, immutable`, `404` when the store has none (or
 * `id` is not 8 hex digits, or not one of the `shared` ids), `405` for methods other than GET and
 * HEAD. Only for dictionaries trained on values every client may see (`shared`).
 * @throws {StowageError} INVALID_ARGUMENT without `shared: true` or a list of ids; the store's errors.
 */
export async function serveDictionary(request: EnvelopeRequest, options: ServeDictionaryOptions): Promise<Response> {
  const shared = options?.shared as unknown
  if (shared !== true && !(Array.isArray(shared) && shared.every((one) => typeof one === 'string' && ID.test(one)))) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'serveDictionary needs shared: true, or the ids (8 lowercase hex digits) of the dictionaries it may serve: your word that they were trained only on values every client may see, as a dictionary holds pieces of its samples and is served to anyone')
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } })
  const id = ID.test(options.id) && (shared === true || (shared as readonly string[]).includes(options.id)) ? options.id : undefined
  const bytes = id === undefined ? undefined : await options.store.get(dictionaryKey(Number.parseInt(id, 16)))
  if (bytes === undefined) return new Response(null, { status: 404, headers: { 'Cache-Control': 'no-store' } })
  const headers = { 'Content-Type': STOWAGE_MEDIA_TYPE, 'Content-Length': String(bytes.length), 'Cache-Control': DICTIONARY_CACHE_CONTROL, ETag: `"dict-${id}"` }
  return new Response(request.method === 'HEAD' ? null : (bytes as Uint8Array<ArrayBuffer>), { status: 200, headers })
}

/**
 * Dictionary `id` from `store`, else fetched from `url` (what the `Stowage-Dictionary` header
 * named), checked against the id, and stored there.
 * @returns its bytes, or `undefined` when the store lacks it and there is no `url`.
 * @throws {StowageError} STORE_ERROR when the fetch fails or answers other than 200; CORRUPT when the answer is not that dictionary; the store's errors.
 */
export async function ensureDictionary(store: Store, id: number, url: string | undefined, fetchFn: typeof globalThis.fetch, init: RequestInit | undefined): Promise<Uint8Array | undefined> {
  // A damaged copy in the store counts as none: fetched again and replaced.
  const kept = await loadDictionary(store, id).catch(() => undefined)
  if (kept !== undefined) return kept
  if (url === undefined) return undefined
  let response: Response
  try {
    response = await fetchFn(url, { credentials: init?.credentials, signal: init?.signal, headers: { Accept: STOWAGE_MEDIA_TYPE } })
  } catch (e) {
    throw new StowageError(StowageErrorCode.STORE_ERROR, `fetching dictionary ${url} failed`, { cause: e })
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {})
    throw new StowageError(StowageErrorCode.STORE_ERROR, `fetching dictionary ${url} failed: HTTP ${response.status}`, { cause: response })
  }
  // A dictionary is at most 32 KiB; its envelope a few bytes more.
  const length = Number(response.headers.get('Content-Length') ?? 0)
  if (length > 64 * 1024) throw new StowageError(StowageErrorCode.CORRUPT, `dictionary ${url} is ${length} bytes: not a dictionary`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const dictionary = readDictionary(bytes, id)
  await storeDictionary(store, dictionary)
  return dictionary
}
