// What a 304 says of the stored copy, what a request's no-cache asks, and the Age of a response:
// RFC 9111's rules where fetchCached first missed them (found by a review, 2026-11-28).
import { createCache, createMemoryStore, type Cache } from '@stowage/core'
import { describe, expect, it, vi } from 'vitest'
import { fetchCachedWithInfo } from '../src/index.js'
import { keepDecision } from '../src/fetch-policy.js'
import { notModified, ok, scriptedFetch, status } from './scripted-fetch.js'

const userA = { id: 'a', name: 'Ada' }
const newCache = (): Cache => createCache({ store: createMemoryStore(), namespace: 'client' })
const url = 'https://api.example/api/me'

describe('304 responses update the stored response (RFC 9111 §4.3.4)', () => {
  it('a 304 with Cache-Control: no-store leaves no copy behind (README: "no-store (response or request): ... any older copy is deleted")', async () => {
    const cache = newCache()
    const { fetch } = scriptedFetch([ok(userA), notModified({ 'Cache-Control': 'no-store' }), () => { throw new TypeError('offline') }])
    expect(await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })).toMatchObject({ kept: true })
    const r = await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    expect(r.kept).toBe(false)
    expect(await cache.getBytes(url)).toBeUndefined()
  })

  it('a 304 that says must-revalidate: the copy no longer answers for a 503', async () => {
    const cache = newCache()
    const { fetch } = scriptedFetch([ok(userA), notModified({ 'Cache-Control': 'no-cache, must-revalidate' }), status(503)])
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    await expect(fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })).rejects.toMatchObject({ cause: { status: 503 } })
  })

  it('a 304 that now says private (no scope): the shared copy is not kept', async () => {
    const cache = newCache()
    const { fetch } = scriptedFetch([ok(userA), notModified({ 'Cache-Control': 'private, max-age=0', Vary: 'Cookie' })])
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    const r = await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    expect(r.kept).toBe(false)
    expect(await cache.getBytes(url)).toBeUndefined()
  })
})

describe('Age (RFC 9111 §4.2.3) bounds the stale-if-error window', () => {
  it('a response already older than max-age + stale-if-error is not kept to answer for errors', () => {
    const request = { headers: new Headers(), crossOrigin: false, scoped: false }
    const response = { headers: new Headers({ 'Cache-Control': 'max-age=60, stale-if-error=60', Age: '600' }) }
    const decision = keepDecision(request, response)
    // current_age 600 s > freshness 60 s + stale-if-error 60 s: may never answer for an error.
    expect(decision.keep === false || (decision.keep && (decision.ttl ?? Infinity) <= 0)).toBe(true)
  })

  it('with Age: 100, the window left is (60 + 60 - 100) s, not 120 s', () => {
    const request = { headers: new Headers(), crossOrigin: false, scoped: false }
    const response = { headers: new Headers({ 'Cache-Control': 'max-age=60, stale-if-error=60', Age: '100' }) }
    expect(keepDecision(request, response)).toStrictEqual({ keep: true, ttl: 20_000, by: 'response' })
  })
})

describe('hostile keys', () => {
  it('__proto__, constructor and a 70 kB URL', async () => {
    const cache = newCache()
    for (const key of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const { fetch } = scriptedFetch([ok({ key })])
      expect((await fetchCachedWithInfo(url, { cache, key, fetch, validatorHints: false })).value).toStrictEqual({ key })
      expect(await cache.get(key)).toStrictEqual({ key })
    }
    const long = `${url}?q=${'a'.repeat(70_000)}`
    const { fetch } = scriptedFetch([ok(userA)])
    await expect(fetchCachedWithInfo(long, { cache, fetch, validatorHints: false })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
  })
})

describe('request directives', () => {
  it('a request with Cache-Control: no-cache is not answered by a stored copy without validation (RFC 9111 §5.2.1.4)', async () => {
    const cache = newCache()
    const { fetch } = scriptedFetch([ok(userA)])
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    // offline now
    await expect(fetchCachedWithInfo(url, { cache, fetch, validatorHints: false, init: { headers: { 'Cache-Control': 'no-cache' } } })).rejects.toBeDefined()
  })
})

describe('request directives and Fetch cache modes', () => {
  // Stored by a first exchange; the second request is the one under test.
  async function keptThen(second: Array<(init: RequestInit | undefined) => Response>) {
    const cache = newCache()
    const { fetch, seen } = scriptedFetch([ok(userA), ...second])
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    return { cache, fetch, seen }
  }

  it('max-age=0, Pragma: no-cache (without Cache-Control) and cache modes no-cache, reload and no-store: no stored copy answers for a failure', async () => {
    const asks: RequestInit[] = [
      { headers: { 'Cache-Control': 'max-age=0' } },
      { headers: { Pragma: 'no-cache' } },
      { cache: 'no-cache' },
      { cache: 'reload' },
      { cache: 'no-store' },
    ]
    for (const init of asks) {
      const { cache, fetch } = await keptThen([status(503)])
      const call = fetchCachedWithInfo(url, { cache, fetch, validatorHints: false, init })
      if (init.cache === 'no-store') {
        // no-store deletes the copy before the request goes out (README).
        await expect(call).rejects.toMatchObject({ cause: { status: 503 } })
        expect(await cache.getBytes(url)).toBeUndefined()
        continue
      }
      await expect(call, JSON.stringify(init)).rejects.toMatchObject({ cause: { status: 503 }, message: expect.stringContaining('a kept copy was not used') as string })
      // The copy was skipped, not deleted: offline, a plain request gets it.
      expect(await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })).toMatchObject({ source: 'offline', value: userA })
    }
    // The plain request and Pragma beside a Cache-Control that allows it: the copy answers.
    for (const init of [{}, { headers: { Pragma: 'no-cache', 'Cache-Control': 'max-age=60' } }]) {
      const { cache, fetch } = await keptThen([status(503)])
      expect(await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false, init })).toMatchObject({ source: 'stale', value: userA })
    }
  })

  it("cache: 'reload' asks without the copy's validator and keeps the new answer; cache: 'no-store' keeps nothing", async () => {
    const reload = await keptThen([ok({ ...userA, name: 'Ada L.' })])
    expect(await fetchCachedWithInfo(url, { cache: reload.cache, fetch: reload.fetch, validatorHints: false, init: { cache: 'reload' } })).toMatchObject({ source: 'network', kept: true })
    expect(reload.seen[1]!.get('If-None-Match')).toBeNull()
    expect(await reload.cache.get(url)).toStrictEqual({ ...userA, name: 'Ada L.' })
    const noStore = await keptThen([ok(userA)])
    expect(await fetchCachedWithInfo(url, { cache: noStore.cache, fetch: noStore.fetch, validatorHints: false, init: { cache: 'no-store' } })).toMatchObject({ source: 'network', kept: false })
    expect(noStore.seen[1]!.get('If-None-Match')).toBeNull()
    expect(await noStore.cache.getBytes(url)).toBeUndefined()
  })
})

describe("a 304's stale-if-error sets how long the copy is kept, from now (RFC 9111 §4.3.4)", () => {
  it('a shorter window in the 304 shortens it: past it, the copy no longer answers for a failure', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const cache = newCache()
      const { fetch } = scriptedFetch([ok(userA, { 'Cache-Control': 'max-age=0, stale-if-error=86400' }), notModified({ 'Cache-Control': 'max-age=0, stale-if-error=60' }), status(503), status(503)])
      await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
      expect(await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })).toMatchObject({ source: 'revalidated', kept: true })
      vi.setSystemTime(Date.now() + 30_000)
      expect(await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })).toMatchObject({ source: 'stale', value: userA })
      vi.setSystemTime(Date.now() + 31_000)
      await expect(fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })).rejects.toMatchObject({ cause: { status: 503 } })
    } finally {
      vi.useRealTimers()
    }
  })

  it('a 304 without stale-if-error leaves the copy as it was (no write)', async () => {
    const cache = newCache()
    const { fetch } = scriptedFetch([ok(userA), notModified({ 'Cache-Control': 'max-age=0' })])
    await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })
    const sets = cache.stats().sets
    expect(await fetchCachedWithInfo(url, { cache, fetch, validatorHints: false })).toMatchObject({ source: 'revalidated', kept: true })
    expect(cache.stats().sets).toBe(sets)
  })
})
