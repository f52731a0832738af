import { createCache, createCodec, inspect, type Cache } from '@stowage/core'
import { afterEach, describe, expect, it } from 'vitest'
import { envelopeEtag, serveCached, STOWAGE_MEDIA_TYPE, toJson } from '../src/index.js'
import { fastify, hono, nodeHttp, type Running } from './servers.js'

const post = { id: 42n, title: 'Hello', at: new Date(1700000000000), tags: new Set(['a', 'b']), meta: new Map([['views', 7]]) }

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

for (const start of [nodeHttp, fastify, hono]) {
  describe(`serving cache entries (${start.name})`, () => {
    async function setup(): Promise<{ cache: Cache; loads: string[] }> {
      const cache = createCache({ namespace: 'server' })
      const loads: string[] = []
      running = await start(cache, (key) => {
        loads.push(key)
        return key === 'post' ? post : { key }
      })
      return { cache, loads }
    }

    it('serves the entry as the store holds it, with its media type, a strong ETag and Vary: Accept', async () => {
      const { cache } = await setup()
      await cache.set('post', post, { tags: ['posts'] })
      const response = await fetch(`${running!.url}/entries/post`, { headers: { Accept: STOWAGE_MEDIA_TYPE } })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe(STOWAGE_MEDIA_TYPE)
      expect(response.headers.get('vary')).toBe('Accept')
      const bytes = new Uint8Array(await response.arrayBuffer())
      const stored = (await cache.getBytes('post'))!
      // The stored bytes, less the tag stamp (tags name this server's own generations).
      expect(inspect(stored).tags?.has('posts')).toBe(true)
      expect(inspect(bytes).tags).toBeUndefined()
      expect(bytes.length).toBeLessThan(stored.length)
      expect(response.headers.get('etag')).toBe(await envelopeEtag(bytes))
      expect(createCodec().decode(bytes)).toStrictEqual(post)
      expect(Number(response.headers.get('content-length'))).toBe(bytes.length)
    })

    it('answers If-None-Match with 304 and no body, until the entry changes', async () => {
      const { cache } = await setup()
      await cache.set('post', post)
      const first = await fetch(`${running!.url}/entries/post`)
      const etag = first.headers.get('etag')!
      await first.arrayBuffer()
      const again = await fetch(`${running!.url}/entries/post`, { headers: { 'If-None-Match': etag } })
      expect(again.status).toBe(304)
      expect((await again.arrayBuffer()).byteLength).toBe(0)
      expect(again.headers.get('etag')).toBe(etag)
      await cache.set('post', { ...post, title: 'Changed' })
      const changed = await fetch(`${running!.url}/entries/post`, { headers: { 'If-None-Match': etag } })
      expect(changed.status).toBe(200)
      expect(changed.headers.get('etag')).not.toBe(etag)
      expect((createCodec().decode(new Uint8Array(await changed.arrayBuffer())) as typeof post).title).toBe('Changed')
    })

    it('gives JSON to clients that prefer it, with an ETag of its own', async () => {
      const { cache } = await setup()
      await cache.set('post', post)
      const response = await fetch(`${running!.url}/entries/post`, { headers: { Accept: 'application/json' } })
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(await response.json()).toStrictEqual(JSON.parse(toJson(post)))
      expect(JSON.parse(toJson(post))).toStrictEqual({ id: '42', title: 'Hello', at: '2023-11-14T22:13:20.000Z', tags: ['a', 'b'], meta: { views: 7 } })
      const envelope = await fetch(`${running!.url}/entries/post`, { headers: { Accept: `application/json;q=0.5, ${STOWAGE_MEDIA_TYPE}` } })
      expect(envelope.headers.get('content-type')).toBe(STOWAGE_MEDIA_TYPE)
      expect(envelope.headers.get('etag')).not.toBe(response.headers.get('etag'))
      await envelope.arrayBuffer()
    })

    it('loads a miss once, stores it, and serves the stored bytes', async () => {
      const { cache, loads } = await setup()
      const responses = await Promise.all([1, 2, 3].map(() => fetch(`${running!.url}/entries/fresh`)))
      const bodies = await Promise.all(responses.map(async (r) => new Uint8Array(await r.arrayBuffer())))
      expect(loads).toStrictEqual(['fresh'])
      // The same bytes; on Node getBytes hands them out as a Buffer.
      for (const body of bodies) expect(body).toStrictEqual(new Uint8Array((await cache.getBytes('fresh'))!))
    })
  })
}

describe('envelopeResponse without a server', () => {
  it('404 without an entry, 405 for other methods, HEAD without a body', async () => {
    const { envelopeResponse } = await import('../src/index.js')
    const get = (method: string, headers: Record<string, string> = {}) => ({ method, headers: new Headers(headers) })
    expect((await envelopeResponse(get('GET'), undefined)).status).toBe(404)
    const bytes = createCodec().encode({ a: 1 })
    const post = await envelopeResponse(get('POST'), bytes)
    expect([post.status, post.headers.get('allow')]).toStrictEqual([405, 'GET, HEAD'])
    const head = await envelopeResponse(get('HEAD'), bytes)
    expect([head.status, head.headers.get('content-length'), head.body]).toStrictEqual([200, String(bytes.length), null])
    const star = await envelopeResponse(get('GET', { 'If-None-Match': '*' }), bytes)
    expect(star.status).toBe(304)
  })
})

describe('serveCached: vary', () => {
  it('adds the vary headers to Vary on 200, 304 and 404, so a client knows the answer depends on who asked', async () => {
    const { envelopeResponse } = await import('../src/index.js')
    const bytes = createCodec().encode({ me: 'a' })
    const request = (headers: Record<string, string> = {}) => ({ method: 'GET', headers: new Headers(headers) })
    const ok = await envelopeResponse(request(), bytes, { vary: ['Cookie'], cacheControl: 'private, no-cache' })
    expect(ok.headers.get('vary')).toBe('Accept, Cookie')
    const notModified = await envelopeResponse(request({ 'If-None-Match': ok.headers.get('etag')! }), bytes, { vary: ['Cookie', 'Authorization'] })
    expect([notModified.status, notModified.headers.get('vary')]).toStrictEqual([304, 'Accept, Cookie, Authorization'])
    expect((await envelopeResponse(request(), undefined, { vary: ['Cookie'] })).headers.get('vary')).toBe('Accept, Cookie')
    const cache = createCache({ namespace: 'vary' })
    await cache.set('me', { me: 'a' })
    expect((await serveCached(request(), { cache, key: 'me', vary: ['Cookie'] })).headers.get('vary')).toBe('Accept, Cookie')
  })
})
