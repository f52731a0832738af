// fetchCached's caching rules alone, without a transport (fetch-policy.ts).
import { describe, expect, it } from 'vitest'
import { crossOrigin, crossOriginRedirect, keepDecision, onErrorStatus, parseCacheControl, speaksFor, type PolicyRequest } from '../src/fetch-policy.js'

const request = (over: Omit<Partial<PolicyRequest>, 'headers'> & { headers?: Record<string, string> } = {}): PolicyRequest => ({ crossOrigin: false, scoped: false, ...over, headers: new Headers(over.headers) })
const response = (headers: Record<string, string>) => ({ headers: new Headers(headers) })

describe('parseCacheControl', () => {
  it('reads directives case-insensitively, with and without values, quoted or not', () => {
    const cc = parseCacheControl('Private, MAX-AGE=60, no-cache="Set-Cookie", , stale-if-error=300')
    expect([...cc]).toStrictEqual([['private', true], ['max-age', '60'], ['no-cache', 'Set-Cookie'], ['stale-if-error', '300']])
    expect(parseCacheControl(null).size).toBe(0)
  })
})

describe('keepDecision', () => {
  it('never keeps no-store, from the response or the request', () => {
    expect(keepDecision(request(), response({ 'Cache-Control': 'no-store' }))).toMatchObject({ keep: false })
    expect(keepDecision(request({ scoped: true, staleIfError: 1000 }), response({ 'Cache-Control': 'private, no-store' }))).toMatchObject({ keep: false })
    expect(keepDecision(request({ headers: { 'Cache-Control': 'no-store' } }), response({}))).toMatchObject({ keep: false })
  })

  it('keeps a plain or max-age=0 response for the ttl given (the cache default when none)', () => {
    expect(keepDecision(request(), response({}))).toStrictEqual({ keep: true, ttl: undefined, by: 'cache' })
    expect(keepDecision(request({ ttl: 5000 }), response({ 'Cache-Control': 'max-age=0' }))).toStrictEqual({ keep: true, ttl: 5000, by: 'app' })
  })

  it('does not keep a no-cache response (no copy may answer without the server, RFC 9111 §4.2.4), even with stale-if-error, unless the app gives staleIfError', () => {
    for (const cc of ['no-cache', 'No-Cache, max-age=60', 'no-cache, stale-if-error=300', 'private, no-cache']) {
      expect(keepDecision(request({ scoped: true }), response({ 'Cache-Control': cc }))).toMatchObject({ keep: false, why: expect.stringContaining('no-cache') })
    }
    expect(keepDecision(request({ staleIfError: 2000 }), response({ 'Cache-Control': 'no-cache' }))).toStrictEqual({ keep: true, ttl: 2000, by: 'app' })
    // Qualified, it names header fields (not kept here): the response itself may be.
    expect(keepDecision(request(), response({ 'Cache-Control': 'no-cache="Set-Cookie"' }))).toStrictEqual({ keep: true, ttl: undefined, by: 'cache' })
  })

  it('keeps private, Vary: Cookie/Authorization and Authorization requests only in a scope', () => {
    const bound = [
      [request(), response({ 'Cache-Control': 'private, max-age=0' })],
      [request(), response({ Vary: 'Accept, Cookie' })],
      [request(), response({ Vary: 'authorization' })],
      [request({ headers: { Authorization: 'Bearer a' } }), response({})],
      [request({ crossOrigin: true, credentials: 'include' }), response({})],
    ] as const
    for (const [req, res] of bound) {
      expect(keepDecision(req, res)).toMatchObject({ keep: false })
      expect(keepDecision({ ...req, scoped: true }, res)).toMatchObject({ keep: true })
    }
    // Cookies sent to the page's own origin are not seen by fetchCached: the response's Vary or private says so.
    expect(keepDecision(request({ credentials: 'include' }), response({}))).toMatchObject({ keep: true })
  })

  it('refuses Vary: * and Vary on a request header it does not keep; Accept, Accept-Encoding and Origin are the same for every user', () => {
    expect(keepDecision(request({ scoped: true }), response({ Vary: '*' }))).toMatchObject({ keep: false })
    expect(keepDecision(request({ scoped: true }), response({ Vary: 'Accept-Language' }))).toMatchObject({ keep: false, why: expect.stringContaining('accept-language') })
    expect(keepDecision(request(), response({ Vary: 'Accept, accept-encoding, Origin' }))).toMatchObject({ keep: true })
  })

  it('bounds the kept time by max-age + stale-if-error, and by the ttl given', () => {
    expect(keepDecision(request(), response({ 'Cache-Control': 'max-age=60, stale-if-error=300' }))).toStrictEqual({ keep: true, ttl: 360_000, by: 'response' })
    expect(keepDecision(request({ ttl: 1000 }), response({ 'Cache-Control': 'max-age=0, stale-if-error=300' }))).toStrictEqual({ keep: true, ttl: 1000, by: 'response' })
    // Without the app's ttl, the cache's own TTL caps a response's window.
    expect(keepDecision(request({ cacheTtl: 60_000 }), response({ 'Cache-Control': 'max-age=60, stale-if-error=31536000' }))).toStrictEqual({ keep: true, ttl: 60_000, by: 'response' })
    expect(keepDecision(request(), response({ 'Cache-Control': 'max-age=0, stale-if-error=0' }))).toMatchObject({ keep: false })
  })

  it('does not keep must-revalidate (a copy could never answer), unless the app opts in with staleIfError', () => {
    expect(keepDecision(request(), response({ 'Cache-Control': 'max-age=60, must-revalidate' }))).toMatchObject({ keep: false })
    expect(keepDecision(request(), response({ 'Cache-Control': 'proxy-revalidate' }))).toMatchObject({ keep: false })
    expect(keepDecision(request({ staleIfError: 86_400_000 }), response({ 'Cache-Control': 'must-revalidate, stale-if-error=1' }))).toStrictEqual({ keep: true, ttl: 86_400_000, by: 'app' })
  })
})

describe('onErrorStatus', () => {
  it('serves a copy for 500/502/503/504 only, drops it for 401/403/404/410, keeps it otherwise', () => {
    expect([500, 502, 503, 504].map(onErrorStatus)).toStrictEqual(['stale', 'stale', 'stale', 'stale'])
    expect([401, 403, 404, 410].map(onErrorStatus)).toStrictEqual(['drop', 'drop', 'drop', 'drop'])
    expect([400, 405, 409, 429, 501, 505, 206, 0].map(onErrorStatus)).toStrictEqual(Array(8).fill('reject'))
  })
})

describe('crossOriginRedirect', () => {
  it('is true only for a followed redirect that ended on another origin', () => {
    expect(crossOriginRedirect('https://a.example/x', { redirected: true, url: 'https://b.example/x' })).toBe(true)
    expect(crossOriginRedirect('https://a.example/x', { redirected: true, url: 'https://a.example/y' })).toBe(false)
    expect(crossOriginRedirect('https://a.example/x', { redirected: false, url: 'https://a.example/x' })).toBe(false)
    expect(crossOriginRedirect('/api/me', { redirected: true, url: 'http://evil.example/me' }, 'http://app.example/')).toBe(true)
    expect(crossOriginRedirect('https://a.example/x', { redirected: true, url: 'http://a.example/x' })).toBe(true)
  })

  it('crossOrigin resolves relative URLs against the base and counts what does not parse as another origin', () => {
    expect(crossOrigin('/api/me', 'http://app.example/page', 'http://app.example/page')).toBe(false)
    expect(crossOrigin('http://api.example/me', 'http://app.example/page', 'http://app.example/page')).toBe(true)
    expect(crossOrigin('/api/me', 'http://app.example/')).toBe(true)
  })
})

describe('speaksFor (which copy a 304 revalidates, RFC 9111 §4.3.4)', () => {
  const etag = (value: string) => ({ kind: 'etag' as const, value })
  const with304 = (headers: Record<string, string>) => ({ headers: new Headers(headers) })
  it('a 304 without an ETag speaks for the copy it answered', () => {
    expect(speaksFor(with304({}), etag('"a"'))).toBe(true)
    expect(speaksFor(with304({}), { kind: 'last-modified', value: 'Tue, 01 Jan 2030 00:00:00 GMT' })).toBe(true)
  })
  it("one with an ETag only for the copy of that ETag: a strong one exactly, a weak one by its opaque tag", () => {
    expect(speaksFor(with304({ ETag: '"a"' }), etag('"a"'))).toBe(true)
    expect(speaksFor(with304({ ETag: '"b"' }), etag('"a"'))).toBe(false)
    expect(speaksFor(with304({ ETag: 'W/"a"' }), etag('"a"'))).toBe(true)
    expect(speaksFor(with304({ ETag: 'W/"a"' }), etag('W/"a"'))).toBe(true)
    expect(speaksFor(with304({ ETag: '"a"' }), etag('W/"a"'))).toBe(false)
    expect(speaksFor(with304({ ETag: '"a"' }), { kind: 'last-modified', value: 'Tue, 01 Jan 2030 00:00:00 GMT' })).toBe(false)
    expect(speaksFor(with304({ ETag: '"a"' }), undefined)).toBe(false)
  })
})
