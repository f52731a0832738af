import { createCache, createCodec, StowageErrorCode } from '@stowage/core'
import { createServer, type Server } from 'node:http'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { envelopeEtag } from '@stowage/http'
import { createIdbStore, fetchCachedWithInfo, STOWAGE_MEDIA_TYPE } from '../src/index.js'

// A real HTTP server on loopback that serves Stowage envelopes with their ETags, as @stowage/http's helpers do.
let server: Server
let base: string
let body: Uint8Array
let requests: Array<{ accept: string | undefined; ifNoneMatch: string | undefined }>
let failWith: number | undefined

beforeEach(async () => {
  requests = []
  failWith = undefined
  body = createCodec().encode({ post: 'hello', comments: Array.from({ length: 50 }, (_, i) => ({ i, text: `comment ${i}` })) })
  server = createServer((req, res) => {
    requests.push({ accept: req.headers.accept, ifNoneMatch: req.headers['if-none-match'] })
    if (failWith) return res.writeHead(failWith).end()
    // A body that is not an envelope (the refusal test) goes out without an ETag.
    const etag = body[0] === 0xc1 ? envelopeEtag(body) : undefined
    if (etag !== undefined && req.headers['if-none-match'] === etag) return res.writeHead(304, { ETag: etag }).end()
    res.writeHead(200, { 'Content-Type': STOWAGE_MEDIA_TYPE, ...(etag === undefined ? {} : { ETag: etag }) }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve))
})

describe('fetchCached', () => {
  it('stores the received bytes as they are, revalidates with ETag, and serves the copy offline', async () => {
    const store = createIdbStore({ dbName: `fetch-${Math.random()}` })
    const cache = createCache({ store, namespace: 'http' })
    const first = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect(first.source).toBe('network')
    expect(first.value).toMatchObject({ post: 'hello' })
    expect(await store.get(`http:${base.replaceAll(':', '%3A')}/post`)).toStrictEqual(body) // the very bytes the server sent, under the URL with its `:` escaped
    expect(requests[0]!.accept).toBe(STOWAGE_MEDIA_TYPE)

    const second = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect(second.source).toBe('revalidated')
    expect(requests[1]!.ifNoneMatch).toBe(first.etag)
    expect(second.value).toStrictEqual(first.value)

    body = createCodec().encode({ post: 'changed' })
    const third = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect([third.source, third.value]).toStrictEqual(['network', { post: 'changed' }])

    failWith = 500
    expect((await fetchCachedWithInfo(`${base}/post`, { cache })).source).toBe('stale')
    await new Promise((resolve) => server.close(resolve))
    server.listen(0) // keep afterEach happy; the old port is gone
    const offline = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect([offline.source, offline.value]).toStrictEqual(['offline', { post: 'changed' }])
  })

  it('refuses what is not an envelope, and says when nothing is cached and the network fails', async () => {
    const cache = createCache({ store: createIdbStore({ dbName: `fetch-${Math.random()}` }) })
    body = new TextEncoder().encode('{"json":true}')
    await expect(fetchCachedWithInfo(`${base}/json`, { cache })).rejects.toMatchObject({ code: StowageErrorCode.BAD_MAGIC })
    expect(await cache.getBytes(`${base}/json`)).toBeUndefined()
    await expect(fetchCachedWithInfo('http://127.0.0.1:1/nothing', { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })
})
