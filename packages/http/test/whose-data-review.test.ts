// Findings of the second whose-data review of fetchCached (2026-11-29), each a case that went wrong
// before its fix: a relative URL sharing one copy between two resources, a 304 naming another
// ETag, validator hints that outlived a sign-out, a no-cache copy answering for the server, and a
// redirect under `redirect: 'error'` taken for a failed request.
import { inspect } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { envelopeResponse, fetchCachedWithInfo, HINTS_ITEM, scopedCache, serveCached, signOut, STOWAGE_MEDIA_TYPE } from '../src/index.js'
import { codec, heldFetch, newCache, outcome, send, server, sharedStorage, twoTabs, userA, userB } from './whose-data-helpers.js'

describe('a relative URL fetched from two pages', () => {
  it("is two keys: Bob's page never gets Ada's copy nor sends Ada's ETag", async () => {
    const s = await server((req, res) => send(res, req.url === '/users/ada/profile' ? userA : userB))
    const g = globalThis as { location?: { href: string } }
    // A page's fetch resolves a relative URL against the page's URL, as browsers do.
    const pageFetch: typeof fetch = (input, init) => fetch(new URL(String(input), g.location!.href), init)
    const cache = newCache()
    try {
      g.location = { href: `${s.url}/users/ada/` }
      const ada = await fetchCachedWithInfo('profile', { cache, fetch: pageFetch, validatorHints: false })
      expect(ada).toMatchObject({ value: userA, kept: true })
      expect(await cache.getBytes(`${s.url}/users/ada/profile`)).toBeDefined()
      // The app moves to Bob's page; the server has a moment of 503.
      g.location = { href: `${s.url}/users/bob/` }
      s.answer = (_req, res) => void res.writeHead(503).end()
      const bob = await outcome(fetchCachedWithInfo('profile', { cache, fetch: pageFetch, validatorHints: false }))
      const asked = s.seen.at(-1)!
      expect(asked.path).toBe('/users/bob/profile')
      expect(asked.headers['if-none-match']).toBeUndefined()
      expect(bob).toStrictEqual({ rejected: 'STORE_ERROR', status: 503 })
      // A path from the root names one resource wherever it is asked from: its key as written.
      s.answer = (_req, res) => send(res, userA)
      await fetchCachedWithInfo('/users/ada/profile', { cache, fetch: pageFetch, validatorHints: false })
      expect(await cache.getBytes('/users/ada/profile')).toBeDefined()
    } finally {
      delete g.location
    }
  })
})

describe('a 304 that names another representation (RFC 9111 §4.3.4)', () => {
  it('does not make the stored copy current: asked again without a validator, the 200 replaces it', async () => {
    let current: unknown = userA
    const s = await server((req, res) => {
      // A server or intermediary that answers a conditional request with 304 and the ETag of what it holds now.
      if (req.headers['if-none-match'] !== undefined) return void res.writeHead(304, { ETag: `"${inspect(codec.encode(current)).crc}"` }).end()
      send(res, current)
    })
    const url = `${s.url}/api/me`
    const cache = newCache()
    const first = await fetchCachedWithInfo(url, { cache, validatorHints: false })
    current = userB
    const again = await fetchCachedWithInfo(url, { cache, validatorHints: false })
    expect(s.seen.map((r) => r.headers['if-none-match'])).toStrictEqual([undefined, first.etag, undefined])
    expect(again).toMatchObject({ source: 'network', value: userB, kept: true })
  })

  it('one that names the copy’s own ETag (or none) still revalidates it', async () => {
    let withEtag = true
    const s = await server((req, res) => {
      const etag = `"${inspect(codec.encode(userA)).crc}"`
      if (req.headers['if-none-match'] !== undefined) return void res.writeHead(304, withEtag ? { ETag: etag } : {}).end()
      send(res, userA)
    })
    const url = `${s.url}/api/me`
    const cache = newCache()
    await fetchCachedWithInfo(url, { cache, validatorHints: false })
    expect(await fetchCachedWithInfo(url, { cache, validatorHints: false })).toMatchObject({ source: 'revalidated', value: userA })
    withEtag = false
    expect(await fetchCachedWithInfo(url, { cache, validatorHints: false })).toMatchObject({ source: 'revalidated', value: userA })
    expect(s.seen).toHaveLength(3)
  })
})

describe('validator hints of what a user sees', () => {
  it('an answer not kept (a request with Authorization, a private response) leaves no trace of its URL', async () => {
    const localStorage = sharedStorage()
    const s = await server((_req, res) => send(res, { results: ['…'] }, { 'Cache-Control': 'private, max-age=0' }))
    const cache = newCache()
    const url = `${s.url}/api/search?q=ada-test-results`
    const r = await fetchCachedWithInfo(url, { cache, validatorHints: localStorage, init: { headers: { Authorization: 'Bearer ada' } } })
    expect(r.kept).toBe(false)
    expect(localStorage.items.get(HINTS_ITEM) ?? '{}').not.toContain('ada-test-results')
  })

  it('a shared copy that is kept has its hint (the early request still works)', async () => {
    const localStorage = sharedStorage()
    const s = await server((_req, res) => send(res, userA))
    const url = `${s.url}/api/shared`
    await fetchCachedWithInfo(url, { cache: newCache(), validatorHints: localStorage })
    expect(localStorage.items.get(HINTS_ITEM)).toContain('/api/shared')
  })

  it("a cache handed in already scoped keeps none, so a sign-out in another tab while its request is out leaves nothing of the user's", async () => {
    const localStorage = sharedStorage()
    const [one, two] = twoTabs()
    const url = 'https://app.example/api/me'
    const { fetch, answer } = heldFetch()
    const pending = fetchCachedWithInfo(url, { cache: scopedCache(two, 'a'), fetch, validatorHints: localStorage })
    await new Promise((r) => setTimeout(r, 10))
    await signOut({ cache: one, scope: 'a', validatorHints: localStorage })
    answer(new Response(codec.encode(userA) as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': STOWAGE_MEDIA_TYPE, ETag: '"ada-v1"', 'Cache-Control': 'max-age=0' } }))
    await pending
    await new Promise((r) => setTimeout(r, 100)) // every invalidation message delivered
    expect(await scopedCache(one, 'a').getBytes(url)).toBeUndefined()
    expect(localStorage.items.get(HINTS_ITEM) ?? '{}').not.toContain('scope:a')
    // Nor later, with no sign-out racing it: a user's partition has no hints at all.
    await fetchCachedWithInfo(url, { cache: scopedCache(two, 'a').withNamespace('inner'), fetch: async () => new Response(codec.encode(userA) as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': STOWAGE_MEDIA_TYPE, ETag: '"ada-v2"' } }), validatorHints: localStorage })
    expect(localStorage.items.get(HINTS_ITEM) ?? '{}').not.toContain('scope:a')
    await Promise.all([one.close(), two.close()])
  })
})

describe('Cache-Control: no-cache', () => {
  it('a no-cache response never answers for the server (RFC 9111 §4.2.4): not on a 503, not offline', async () => {
    const s = await server((_req, res) => send(res, userA, { 'Cache-Control': 'no-cache' }))
    const url = `${s.url}/api/me`
    const cache = newCache()
    expect(await fetchCachedWithInfo(url, { cache, validatorHints: false })).toMatchObject({ value: userA, kept: false })
    s.answer = (_req, res) => void res.writeHead(503).end()
    expect(await outcome(fetchCachedWithInfo(url, { cache, validatorHints: false }))).toStrictEqual({ rejected: 'STORE_ERROR', status: 503 })
  })

  it("max-age=0 (serveCached's default) is revalidated every time and answers when the server cannot", async () => {
    const s = await server((req, res) => {
      const etag = `"${inspect(codec.encode(userA)).crc}"`
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { ETag: etag }).end()
      send(res, userA, { 'Cache-Control': 'max-age=0' })
    })
    const url = `${s.url}/api/me`
    const cache = newCache()
    expect(await fetchCachedWithInfo(url, { cache, validatorHints: false })).toMatchObject({ kept: true })
    expect(await fetchCachedWithInfo(url, { cache, validatorHints: false })).toMatchObject({ source: 'revalidated' })
    s.answer = (_req, res) => void res.writeHead(503).end()
    expect(await outcome(fetchCachedWithInfo(url, { cache, validatorHints: false }))).toStrictEqual({ source: 'stale', value: userA })
  })
})

describe("a redirect with init.redirect: 'error'", () => {
  it('is the server’s answer: it rejects, and the kept copy does not answer for it', async () => {
    const sso = await server((_req, res) => void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<form>sign in</form>'))
    const s = await server((_req, res) => send(res, userA))
    const url = `${s.url}/api/me`
    const cache = newCache()
    const init: RequestInit = { redirect: 'error' }
    await fetchCachedWithInfo(url, { cache, init, scope: 'a' })
    // The session ended: the server now redirects to the identity provider.
    s.answer = (_req, res) => void res.writeHead(302, { Location: `${sso.url}/login` }).end()
    const failed = await fetchCachedWithInfo(url, { cache, init, scope: 'a' }).catch((e: unknown) => e)
    expect(failed).toMatchObject({ code: 'STORE_ERROR', message: expect.stringContaining("init.redirect is 'error'") })
    expect(sso.seen).toHaveLength(0)
  })
})

describe('a misspelt option', () => {
  it('is refused by fetchCached, signOut and serveCached, never ignored (a misspelt scope would keep a user’s answers where the next user finds them)', async () => {
    const cache = newCache()
    await expect(fetchCachedWithInfo('https://app.example/api/me', { cache, scpoe: 'ada' } as never)).rejects.toThrow('unknown fetchCached option "scpoe" (did you mean scope?)')
    await expect(signOut({ cache, scoep: 'ada' } as never)).rejects.toThrow('unknown signOut option "scoep" (did you mean scope?)')
    await expect(serveCached(new Request('https://app.example/x'), { cache, key: 'x', load: () => 1, cachecontrol: 'private' } as never)).rejects.toThrow('unknown serveCached option "cachecontrol" (did you mean cacheControl?)')
  })
})

// The second review of these fixes (the same day): pages that are not http(s), a <base href>, and envelopeResponse's own options.
type G = { location?: { href: string }; document?: { baseURI: string } }

describe('a page-relative URL on a page that is not http(s) (Capacitor, Electron app://, extension pages)', () => {
  it("is keyed by the URL fetch resolves it to, so Bob's page never gets Ada's copy", async () => {
    const s = await server((req, res) => send(res, req.url === '/users/ada/profile' ? userA : userB))
    const g = globalThis as G
    // The webview resolves against capacitor://localhost/…; the test maps that origin onto the test server.
    const pageFetch: typeof fetch = (input, init) => fetch(new URL(String(input), g.location!.href).href.replace('capacitor://localhost', s.url), init)
    const cache = newCache()
    try {
      g.location = { href: 'capacitor://localhost/users/ada/' }
      expect(await fetchCachedWithInfo('profile', { cache, fetch: pageFetch, validatorHints: false })).toMatchObject({ value: userA, kept: true })
      g.location = { href: 'capacitor://localhost/users/bob/' }
      s.answer = (_req, res) => void res.writeHead(503).end()
      const bob = await outcome(fetchCachedWithInfo('profile', { cache, fetch: pageFetch, validatorHints: false }))
      expect(s.seen.at(-1)!.path).toBe('/users/bob/profile')
      expect(bob).toStrictEqual({ rejected: 'STORE_ERROR', status: 503 })
    } finally {
      delete g.location
    }
  })
})

describe('a page-relative URL on a page with <base href>', () => {
  it('is keyed by the URL fetch requests (resolved against document.baseURI, not location.href)', async () => {
    const s = await server((req, res) => send(res, req.url === '/t/ada/profile' ? userA : userB))
    const g = globalThis as G
    // What a browser's fetch does: relative URLs resolve against the document's base URL.
    const pageFetch: typeof fetch = (input, init) => fetch(new URL(String(input), g.document!.baseURI), init)
    const cache = newCache()
    try {
      g.location = { href: `${s.url}/dashboard` }
      g.document = { baseURI: `${s.url}/t/ada/` }
      await fetchCachedWithInfo('profile', { cache, fetch: pageFetch, validatorHints: false })
      // the key should name what was fetched
      const keyedAsFetched = (await cache.getBytes(`${s.url}/t/ada/profile`)) !== undefined
      // Same page URL, another tenant's base (server-rendered per session): Bob, and a 503.
      g.document = { baseURI: `${s.url}/t/bob/` }
      s.answer = (_req, res) => void res.writeHead(503).end()
      const bob = await outcome(fetchCachedWithInfo('profile', { cache, fetch: pageFetch, validatorHints: false }))
      expect({ keyedAsFetched, bob }).toStrictEqual({ keyedAsFetched: true, bob: { rejected: 'STORE_ERROR', status: 503 } })
    } finally {
      delete g.location
      delete g.document
    }
  })
})

describe('a <base href> naming another origin', () => {
  it("a credentialed request that goes to another origin is not kept without a scope", async () => {
    const g = globalThis as G
    const cache = newCache()
    let asked = ''
    const pageFetch = (async (input: string) => {
      asked = new URL(input, g.document!.baseURI).href
      return new Response(codec.encode(userA) as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': STOWAGE_MEDIA_TYPE, ETag: '"a"' } })
    }) as unknown as typeof fetch
    try {
      g.location = { href: 'https://app.example/home' }
      g.document = { baseURI: 'https://api.other.example/v1/' }
      const r = await fetchCachedWithInfo('me', { cache, fetch: pageFetch, validatorHints: false, init: { credentials: 'include' } })
      expect({ asked, kept: r.kept }).toStrictEqual({ asked: 'https://api.other.example/v1/me', kept: false })
    } finally {
      delete g.location
      delete g.document
    }
  })
})

describe('envelopeResponse options', () => {
  it('refuses serveCached-only options it ignores, and names itself in the message', async () => {
    const bytes = codec.encode(userA)
    const req = { method: 'GET', headers: new Headers() }
    const ignored = await envelopeResponse(req, bytes, { ttl: 60_000, load: () => 1 } as never).then(() => 'accepted', (e: Error) => e.message)
    const misspelt = await envelopeResponse(req, bytes, { cachecontrol: 'private' } as never).then(() => 'accepted', (e: Error) => e.message)
    expect({ ignored, misspelt }).toStrictEqual({ ignored: expect.stringContaining('unknown envelopeResponse option'), misspelt: expect.stringContaining('unknown envelopeResponse option') })
  })
})

