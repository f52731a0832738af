// Whose data, where fetchCached, signOut and sendNodeResponse meet a second user, another origin or
// another tab: cases a review of 2026-11-28 found open (each of these failed before its fix).
import { createCache, createMemoryStore, StowageErrorCode } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { fetchCachedWithInfo, scopedCache, sendNodeResponse, signOut, STOWAGE_MEDIA_TYPE } from '../src/index.js'
import { codec, heldFetch, newCache, send, server, twoTabs, userA, userB } from './whose-data-helpers.js'

describe('fetchCached: redirects with init.redirect', () => {
  it("with init.redirect: 'follow' (fetch's default), a conditional request is still never followed to another origin", async () => {
    // Another origin that answers 304 to any conditional request (and records what it was sent).
    const other = await server((req, res) => {
      if (req.headers['if-none-match'] !== undefined) return void res.writeHead(304).end()
      send(res, { planted: true })
    })
    const s = await server((_req, res) => send(res, userA))
    const url = `${s.url}/api/me`
    const cache = newCache()
    const init: RequestInit = { redirect: 'follow' }
    expect(await fetchCachedWithInfo(url, { cache, init })).toMatchObject({ kept: true })
    s.answer = (_req, res) => void res.writeHead(302, { Location: `${other.url}/evil` }).end()
    // README: "a redirect to another origin is refused (STORE_ERROR) and the kept copy deleted ...
    // so the kept copy's ETag never reaches another origin".
    const outcome = await fetchCachedWithInfo(url, { cache, init }).then(
      (r) => ({ resolved: r.source }),
      (e: { code?: string }) => ({ rejected: e.code }),
    )
    expect({ outcome, etagsSentToOtherOrigin: other.seen.map((r) => r.headers['if-none-match']).filter(Boolean) }).toStrictEqual({
      outcome: { rejected: StowageErrorCode.STORE_ERROR },
      etagsSentToOtherOrigin: [],
    })
    expect(await cache.getBytes(url)).toBeUndefined()
  })
})

describe('fetchCached: the request method', () => {
  it('refuses a method other than GET (INVALID_ARGUMENT) before asking anything, so no other answer is kept under the URL', async () => {
    const s = await server((req, res) => {
      if (req.method === 'POST') return send(res, { created: 'order-1' })
      res.writeHead(503).end()
    })
    const url = `${s.url}/api/orders`
    const cache = newCache()
    for (const method of ['POST', 'put', 'HEAD']) {
      await expect(fetchCachedWithInfo(url, { cache, init: { method, body: method === 'HEAD' ? undefined : 'x' } })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    }
    expect(s.seen).toHaveLength(0)
    // A GET of the URL while the server is down: nothing stands in for it.
    const get = await fetchCachedWithInfo(url, { cache }).then(
      (r) => ({ source: r.source, value: r.value }),
      (e: { cause?: { status?: number } }) => ({ rejectedWithStatus: e.cause?.status }),
    )
    expect(get).toStrictEqual({ rejectedWithStatus: 503 })
    // GET in any case is a GET.
    s.answer = (_req, res) => send(res, userA)
    expect((await fetchCachedWithInfo(url, { cache, init: { method: 'get' } })).value).toStrictEqual(userA)
  })
})

describe('fetchCached: cookies sent by the app', () => {
  it('a response to a request with a Cookie header is not kept without a scope (as for Authorization)', async () => {
    // A server-side (SSR / Node) caller forwarding each visitor's session cookie.
    const s = await server((req, res) => send(res, req.headers.cookie === 'sid=a' ? userA : userB))
    const url = `${s.url}/api/me`
    const cache = newCache()
    const a = await fetchCachedWithInfo(url, { cache, init: { headers: { Cookie: 'sid=a' } } })
    expect(a.value).toStrictEqual(userA)
    // Visitor B, while the server answers 503: nothing of A's may answer.
    s.answer = (_req, res) => void res.writeHead(503).end()
    const b = await fetchCachedWithInfo(url, { cache, init: { headers: { Cookie: 'sid=b' } } }).then(
      (r) => r.value,
      (e: { cause?: { status?: number } }) => e.cause?.status,
    )
    expect(b).toBe(503)
    expect(a.kept).toBe(false)
  })
})

describe('fetchCached: a no-store request and a 304', () => {
  it('a request with Cache-Control: no-store leaves no copy behind, even when the server answers 304', async () => {
    const s = await server((req, res) => {
      if (req.headers['if-none-match'] !== undefined) return void res.writeHead(304).end()
      send(res, userA)
    })
    const url = `${s.url}/api/me`
    const cache = newCache()
    await fetchCachedWithInfo(url, { cache })
    expect(await cache.getBytes(url)).toBeDefined()
    // README: "no-store (response or request): returned, never kept, and any older copy is deleted."
    const r = await fetchCachedWithInfo(url, { cache, init: { headers: { 'Cache-Control': 'no-store' } } })
    expect(r.value).toStrictEqual(userA)
    expect(await cache.getBytes(url)).toBeUndefined()
    expect(r.kept).toBe(false)
  })
})

describe('signOut: a store that fails to clear', () => {
  it("with writeErrors: 'ignore', a sign-out whose clear failed still rejects (STORE_ERROR) instead of resolving over the user's entries", async () => {
    const memory = createMemoryStore()
    // A store whose clear fails (IndexedDB aborting the transaction, a closed connection…).
    const store = Object.assign(Object.create(memory) as typeof memory, { clear: () => Promise.reject(new Error('transaction aborted')) })
    const cache = createCache({ store, namespace: 'app', writeErrors: 'ignore' })
    await scopedCache(cache, 'a').set('/api/me', userA)
    const outcome = await signOut({ cache, scope: 'a' }).then(
      () => 'resolved',
      (e: { code?: string }) => e.code,
    )
    // signOut's contract: "STORE_ERROR (after trying every step; the first failure as cause)": the
    // app learns that the user's entries are still there (the store could not remove them).
    expect(outcome).toBe(StowageErrorCode.STORE_ERROR)
    expect(await scopedCache(cache, 'a').get('/api/me')).toStrictEqual(userA)
  })
})

describe('sendNodeResponse', () => {
  it('passes every Set-Cookie header on (a sign-out response that clears two cookies)', async () => {
    const headers = new Headers()
    headers.append('Set-Cookie', 'sid=; Max-Age=0; Path=/')
    headers.append('Set-Cookie', 'refresh=; Max-Age=0; Path=/')
    let written: Record<string, string | string[]> = {}
    await sendNodeResponse({ writeHead: (_status, h) => (written = h), end: () => {} }, new Response(null, { status: 204, headers }))
    expect(written['set-cookie']).toStrictEqual(['sid=; Max-Age=0; Path=/', 'refresh=; Max-Age=0; Path=/'])
  })
})

describe('signOut in one tab, a request in flight in another', () => {
  it('a request tab two sent before the sign-out, answered just after it, is not left in the store', async () => {
    const [one, two] = twoTabs()
    const url = 'https://app.example/api/me'
    const { fetch, answer } = heldFetch()
    // Tab two asks for user a's record; the request is out.
    const pending = fetchCachedWithInfo(url, { cache: two, scope: 'a', fetch })
    await new Promise((r) => setTimeout(r, 10))
    // Tab one signs user a out; then tab two's answer arrives.
    await signOut({ cache: one, scope: 'a' })
    answer(new Response(codec.encode(userA) as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': STOWAGE_MEDIA_TYPE, 'Cache-Control': 'private, max-age=0' } }))
    const result = await pending
    expect(result.value).toStrictEqual(userA)
    // Tab two may have stored the answer before it heard of the sign-out (its claim still held): it
    // deletes it again when the sign-out's message comes, as it wrote it after the clear began.
    await new Promise((r) => setTimeout(r, 100)) // every invalidation message delivered
    expect(await scopedCache(one, 'a').getBytes(url)).toBeUndefined()
    expect(await scopedCache(two, 'a').get(url)).toBeUndefined()
    await Promise.all([one.close(), two.close()])
  })
})

describe('signOut while a revalidation is out', () => {
  it('a 304 that comes after the sign-out answers, and says the copy is no longer kept', async () => {
    let release: () => void = () => {}
    const s = await server((req, res) => {
      if (req.headers['if-none-match'] === undefined) return send(res, userA)
      new Promise<void>((resolve) => (release = resolve)).then(() => void res.writeHead(304).end())
    })
    const url = `${s.url}/api/me`
    const cache = newCache()
    expect(await fetchCachedWithInfo(url, { cache, scope: 'a' })).toMatchObject({ kept: true })
    const pending = fetchCachedWithInfo(url, { cache, scope: 'a' })
    await until(() => s.seen.length === 2)
    await signOut({ cache, scope: 'a' })
    release()
    const result = await pending
    expect({ source: result.source, value: result.value, kept: result.kept }).toStrictEqual({ source: 'revalidated', value: userA, kept: false })
    expect(await scopedCache(cache, 'a').getBytes(url)).toBeUndefined()
  })
})

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5))
  expect(check()).toBe(true)
}
