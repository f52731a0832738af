// fetchCached against scripted node:http servers: whose data a stored copy is, when it may answer
// for the server, redirects and the timeout.
import { createCache, createCodec, createMemoryStore, inspect, StowageErrorCode, type Cache } from '@stowage/core'
import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_FETCH_TIMEOUT, fetchCachedWithInfo, scopedCache, STOWAGE_MEDIA_TYPE } from '../src/index.js'
import { scripted, type Running } from './servers.js'

const running: Running[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()))
})

const codec = createCodec()
const userA = { id: 'a', name: 'Ada', email: 'ada@example.com' }
const userB = { id: 'b', name: 'Bob', email: 'bob@example.com' }

// An envelope of `value` with `headers`, or a bare status.
const envelope = (value: unknown, headers: Record<string, string> = {}) => (res: ServerResponse) => {
  const bytes = codec.encode(value)
  res.writeHead(200, { 'Content-Type': STOWAGE_MEDIA_TYPE, ETag: `"${inspect(bytes).crc}"`, ...headers }).end(bytes)
}
const status = (code: number) => (res: ServerResponse) => void res.writeHead(code).end()

async function server(first: (res: ServerResponse) => void) {
  const s = await scripted((_req, res) => first(res))
  running.push(s)
  const answer = (next: (res: ServerResponse) => void) => {
    s.answer = (_req, res) => next(res)
  }
  return { url: `${s.url}/api/me`, seen: s.seen, answer, close: () => s.close() }
}

const newCache = (): Cache => createCache({ store: createMemoryStore(), namespace: 'client' })

describe('fetchCached: a 4xx is an answer', () => {
  for (const code of [401, 403, 404, 410]) {
    it(`rejects a ${code} with the status, keeping the Response as cause, and deletes the stored copy`, async () => {
      const s = await server(envelope(userA))
      const cache = newCache()
      expect((await fetchCachedWithInfo(s.url, { cache })).value).toStrictEqual(userA)
      s.answer(status(code))
      const error = await fetchCachedWithInfo(s.url, { cache }).catch((e: unknown) => e)
      expect(error).toMatchObject({ code: StowageErrorCode.STORE_ERROR, cause: { status: code } })
      expect(await cache.getBytes(s.url)).toBeUndefined()
      // Nothing of the old user's is left to answer for the server later.
      s.answer(status(503))
      await expect(fetchCachedWithInfo(s.url, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR, cause: { status: 503 } })
    })
  }

  it('serves a stored copy for 500, 502, 503 and 504 (saying why), rejects any other status and keeps the copy', async () => {
    const s = await server(envelope(userA))
    const cache = newCache()
    await fetchCachedWithInfo(s.url, { cache })
    for (const code of [500, 502, 503, 504]) {
      s.answer(status(code))
      expect(await fetchCachedWithInfo(s.url, { cache })).toMatchObject({ source: 'stale', value: userA, problem: { code: StowageErrorCode.STORE_ERROR, cause: { status: code } } })
    }
    for (const code of [400, 429, 501, 204]) {
      s.answer(status(code))
      await expect(fetchCachedWithInfo(s.url, { cache })).rejects.toMatchObject({ cause: { status: code } })
    }
    expect(await cache.getBytes(s.url)).toBeDefined()
    await s.close()
    expect(await fetchCachedWithInfo(s.url, { cache })).toMatchObject({ source: 'offline', value: userA, problem: { code: StowageErrorCode.STORE_ERROR } })
  })
})

describe('fetchCached: what may be kept', () => {
  it('never keeps a no-store response: returns its value, drops the older copy, and has nothing to serve offline', async () => {
    const s = await server(envelope(userA))
    const cache = newCache()
    await fetchCachedWithInfo(s.url, { cache })
    s.answer(envelope(userB, { 'Cache-Control': 'no-store' }))
    expect(await fetchCachedWithInfo(s.url, { cache })).toMatchObject({ source: 'network', value: userB, kept: false })
    expect(await cache.getBytes(s.url)).toBeUndefined()
    await s.close()
    await expect(fetchCachedWithInfo(s.url, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })

  it('keeps a private or Vary: Cookie response only in a per-user scope, where no other user finds it', async () => {
    const s = await server(envelope(userA, { 'Cache-Control': 'private, max-age=0', Vary: 'Accept, Cookie' }))
    const cache = newCache()
    // Without a scope: returned, not kept.
    expect(await fetchCachedWithInfo(s.url, { cache })).toMatchObject({ value: userA, kept: false })
    expect(await cache.getBytes(s.url)).toBeUndefined()
    // In user a's scope: kept there, and a 304 revalidates it.
    expect(await fetchCachedWithInfo(s.url, { cache, scope: 'a' })).toMatchObject({ value: userA, kept: true })
    expect(await scopedCache(cache, 'a').getBytes(s.url)).toBeDefined()
    // User b signs in: on a 503, and offline, nothing of a's answers.
    s.answer(status(503))
    await expect(fetchCachedWithInfo(s.url, { cache, scope: 'b' })).rejects.toMatchObject({ cause: { status: 503 } })
    await s.close()
    await expect(fetchCachedWithInfo(s.url, { cache, scope: 'b' })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    expect(await fetchCachedWithInfo(s.url, { cache, scope: 'a' })).toMatchObject({ source: 'offline', value: userA })
    await expect(fetchCachedWithInfo(s.url, { cache, scope: 'b:a' })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
  })

  it('keeps a response to a request with Authorization only in a scope', async () => {
    const s = await server(envelope(userA))
    const cache = newCache()
    const init = { headers: { Authorization: 'Bearer token-of-a' } }
    expect(await fetchCachedWithInfo(s.url, { cache, init })).toMatchObject({ value: userA, kept: false })
    expect(await fetchCachedWithInfo(s.url, { cache, init, scope: 'a' })).toMatchObject({ value: userA, kept: true })
  })

  it('keeps a stale-if-error response no longer than max-age + stale-if-error', async () => {
    const s = await server(envelope(userA, { 'Cache-Control': 'max-age=0, stale-if-error=1' }))
    const cache = newCache()
    await fetchCachedWithInfo(s.url, { cache })
    s.answer(status(503))
    expect(await fetchCachedWithInfo(s.url, { cache })).toMatchObject({ source: 'stale' })
    await new Promise((r) => setTimeout(r, 1100))
    await expect(fetchCachedWithInfo(s.url, { cache })).rejects.toMatchObject({ cause: { status: 503 } })
  })

  it('does not keep must-revalidate unless the app opts in with staleIfError', async () => {
    const s = await server(envelope(userA, { 'Cache-Control': 'no-cache, must-revalidate' }))
    const cache = newCache()
    expect(await fetchCachedWithInfo(s.url, { cache })).toMatchObject({ kept: false })
    expect(await fetchCachedWithInfo(s.url, { cache, staleIfError: 60_000 })).toMatchObject({ kept: true })
    s.answer(status(503))
    expect(await fetchCachedWithInfo(s.url, { cache, staleIfError: 60_000 })).toMatchObject({ source: 'stale', value: userA })
  })
})

describe('fetchCached: redirects', () => {
  it('refuses a redirect to another origin: nothing kept under the URL, the older copy dropped, its ETag never sent there', async () => {
    const other = await scripted((_req, res) => envelope({ planted: true })(res))
    running.push(other)
    const s = await server(envelope(userA))
    const cache = newCache()
    await fetchCachedWithInfo(s.url, { cache })
    s.answer((res) => void res.writeHead(302, { Location: `${other.url}/evil` }).end())
    await expect(fetchCachedWithInfo(s.url, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR, message: expect.stringContaining('another origin') })
    expect(await cache.getBytes(s.url)).toBeUndefined()
    await expect(fetchCachedWithInfo(s.url, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    expect(other.seen.length).toBeGreaterThan(0)
    expect(other.seen.map((r) => r.headers['if-none-match'])).toStrictEqual(other.seen.map(() => undefined))
  })

  it('follows a redirect within the origin and keeps the answer under the URL asked for', async () => {
    const s = await server(envelope(userA))
    const cache = newCache()
    const first = await fetchCachedWithInfo(s.url, { cache })
    const seen = s.seen.length
    // The resource moved to /api/me/ on the same server.
    s.answer((res) => {
      if (s.seen.at(-1)!.path === '/api/me') return void res.writeHead(301, { Location: '/api/me/' }).end()
      envelope(userB)(res)
    })
    expect(await fetchCachedWithInfo(s.url, { cache })).toMatchObject({ source: 'network', value: userB, kept: true })
    expect(s.seen.slice(seen).map((r) => [r.path, r.headers['if-none-match']])).toStrictEqual([['/api/me', first.etag], ['/api/me', undefined], ['/api/me/', undefined]])
  })
})

describe('fetchCached: timeout', () => {
  it('gives up past timeout on a body that never ends (TIMEOUT), and serves a stored copy then', async () => {
    const s = await server(envelope(userA))
    const cache = newCache()
    expect(DEFAULT_FETCH_TIMEOUT).toBe(30_000)
    const stall = (res: ServerResponse) => {
      res.writeHead(200, { 'Content-Type': STOWAGE_MEDIA_TYPE, 'Content-Length': '1000' })
      res.write(new Uint8Array([0xc1]))
    }
    s.answer(stall)
    const started = Date.now()
    await expect(fetchCachedWithInfo(s.url, { cache, timeout: 200 })).rejects.toMatchObject({ code: StowageErrorCode.TIMEOUT })
    expect(Date.now() - started).toBeLessThan(2000)
    s.answer(envelope(userA))
    await fetchCachedWithInfo(s.url, { cache })
    s.answer(() => {}) // no headers either
    expect(await fetchCachedWithInfo(s.url, { cache, timeout: 200 })).toMatchObject({ source: 'offline', value: userA, problem: { code: StowageErrorCode.TIMEOUT } })
  })

  it('rejects when the app aborts, instead of serving the stored copy', async () => {
    const s = await server(envelope(userA))
    const cache = newCache()
    await fetchCachedWithInfo(s.url, { cache })
    s.answer(() => {})
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    await expect(fetchCachedWithInfo(s.url, { cache, init: { signal: controller.signal } })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })
})
