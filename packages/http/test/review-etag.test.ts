// Found by a review of the SHA-256 ETag change (2026-11-29): a 304's stale-if-error window and
// the TTLs that bound it, a 304 whose write fails, a validator the server never sent, and the
// browser's own HTTP cache on a conditional request.
import { createCache, createCodec, createMemoryStore, withValidator, type Cache, type Store } from '@stowage/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fetchCachedWithInfo, STOWAGE_MEDIA_TYPE } from '../src/index.js'
import { notModified, ok, scriptedFetch, status } from './scripted-fetch.js'

const codec = createCodec()
const userA = { id: 'a', name: 'Ada' }
const url = 'https://api.example/api/me'
const newCache = (options: { ttl?: number; store?: Store } = {}): Cache => createCache({ store: options.store ?? createMemoryStore(), namespace: 'client', ttl: options.ttl })


afterEach(() => {
  vi.useRealTimers()
})

describe("a 304 with stale-if-error and the app's ttl", () => {
  // README: "One whose stale-if-error sets how long the copy may answer for the server keeps it for
  // that window from now (max-age + stale-if-error less Age, at most ttl), shorter or longer than before".
  it('F1: a 304 whose window is longer than the app ttl keeps the copy for ttl from now', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const cache = newCache()
    const options = { cache, validatorHints: false as const, ttl: 60_000 }
    const { fetch } = scriptedFetch([ok(userA, { 'Cache-Control': 'max-age=0, stale-if-error=10' }), notModified({ 'Cache-Control': 'max-age=0, stale-if-error=3600' }), status(503)])
    await fetchCachedWithInfo(url, { ...options, fetch }) // kept 10 s (the response's window < ttl)
    vi.setSystemTime(Date.now() + 5_000)
    expect(await fetchCachedWithInfo(url, { ...options, fetch })).toMatchObject({ source: 'revalidated', kept: true })
    // 30 s after the 304: inside "that window from now, at most ttl" (60 s).
    vi.setSystemTime(Date.now() + 30_000)
    expect(await fetchCachedWithInfo(url, { ...options, fetch })).toMatchObject({ source: 'stale', value: userA })
  })
})

describe("the cache's ttl bounds how long a copy is kept", () => {
  // README: "How long: a copy is kept for ttl (the cache's by default). A response with
  // stale-if-error is kept at most ..."; options table: "a response's stale-if-error shortens it".
  it("F2: a 304's stale-if-error does not keep a copy past the cache's ttl", async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const cache = newCache({ ttl: 60_000 })
    const options = { cache, validatorHints: false as const }
    const { fetch } = scriptedFetch([ok(userA, { 'Cache-Control': 'max-age=0' }), notModified({ 'Cache-Control': 'max-age=0, stale-if-error=31536000' }), status(503)])
    await fetchCachedWithInfo(url, { ...options, fetch })
    expect(await fetchCachedWithInfo(url, { ...options, fetch })).toMatchObject({ source: 'revalidated', kept: true })
    vi.setSystemTime(Date.now() + 24 * 3600_000) // a day later: 1440 times the cache's ttl
    await expect(fetchCachedWithInfo(url, { ...options, fetch })).rejects.toMatchObject({ cause: { status: 503 } })
    expect(await cache.getBytes(url)).toBeUndefined()
  })
})

describe('a 304 that writes', () => {
  it('F3: a store that cannot take the write does not turn a 304 (the copy is current) into a rejection', async () => {
    const inner = createMemoryStore()
    let failWrites = false
    const store: Store = Object.assign(Object.create(inner) as Store, {
      set: (key: string, value: Uint8Array, o?: Parameters<Store['set']>[2]) => (failWrites ? Promise.reject(new Error('QuotaExceededError')) : inner.set(key, value, o)),
    })
    const cache = newCache({ store })
    const { fetch } = scriptedFetch([ok(userA, { 'Cache-Control': 'max-age=0, stale-if-error=600' }), notModified({ 'Cache-Control': 'max-age=0, stale-if-error=600' })])
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    failWrites = true
    // Before e5bb166 a 304 never wrote and this resolved with the copy.
    const result = await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    expect(result).toMatchObject({ source: 'revalidated', value: userA, kept: true, problem: { code: 'STORE_ERROR' } })
    failWrites = false
    expect(await cache.get(url)).toStrictEqual(userA)
  })
})

describe("the validator a copy is revalidated with is the server's", () => {
  // README: "it keeps the server's validator inside the envelope's header ... A copy kept without one
  // ... is asked for again without it." A server that sends neither ETag nor Last-Modified, serving an
  // envelope that already carries a validator (written by another fetchCached, e.g. a file exported
  // from a Node fetchCached's result.bytes): the copy is revalidated with a validator this server never sent.
  it('F4: no ETag and no Last-Modified from the server: the next request carries no validator', async () => {
    const foreign = withValidator(codec.encode(userA), { kind: 'etag', value: '"from-elsewhere"' })
    const cache = newCache()
    const { fetch, seen } = scriptedFetch([
      () => new Response(foreign as Uint8Array<ArrayBuffer>, { status: 200, headers: { 'Content-Type': STOWAGE_MEDIA_TYPE } }),
      ok({ id: 'a', name: 'Ada L.' }),
    ])
    const first = await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    expect(first.etag).toBeUndefined() // "the server's etag ... undefined when the server sent none"
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    expect(seen[1]!.get('If-None-Match')).toBeNull()
  })
})

describe("the browser's HTTP cache", () => {
  it("a conditional request goes with cache: 'no-store' (in no-cache mode a browser would revalidate its own older copy); an unconditional one with the app's mode", async () => {
    const modes: Array<RequestCache | undefined> = []
    const answers = [ok(userA), notModified(), ok(userA)]
    const fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      modes.push(init?.cache)
      return answers.shift()!()
    }) as typeof globalThis.fetch
    const cache = newCache()
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false, init: { cache: 'no-cache' } })
    expect(await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false, init: { cache: 'no-cache' } })).toMatchObject({ source: 'revalidated' })
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false, init: { cache: 'reload' } })
    expect(modes).toStrictEqual(['no-cache', 'no-store', 'reload'])
  })
})
