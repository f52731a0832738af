import { createCache, createCodec, StowageErrorCode } from '@stowage/core'
import { beforeEach, describe, expect, inject, it } from 'vitest'
import { createIdbStore, fetchCachedWithInfo, STOWAGE_MEDIA_TYPE } from '../src/index.js'

// A real HTTP server in Node (test/envelope-server.ts, started by test/global-setup.ts), reached
// over the network from Node and from each browser engine alike; each test has its own resource.
let base: string
const control = async (path: string, body?: Uint8Array) => {
  const res = await fetch(`${base}/${path}`, { method: 'PUT', body: body as BodyInit | undefined })
  expect(res.status).toBe(204)
}
const serve = (body: Uint8Array) => control('body', body)
const requests = async () => (await (await fetch(`${base}/requests`)).json()) as Array<{ accept?: string; ifNoneMatch?: string }>

beforeEach(() => {
  base = `${inject('envelopeServer')}/${Math.random().toString(36).slice(2)}`
})

describe('fetchCached', () => {
  it('stores the received bytes as they are, revalidates with ETag, and serves the copy offline', async () => {
    const body = createCodec().encode({ post: 'hello', comments: Array.from({ length: 50 }, (_, i) => ({ i, text: `comment ${i}` })) })
    await serve(body)
    const store = createIdbStore({ dbName: `fetch-${Math.random()}` })
    const cache = createCache({ store, namespace: 'http' })
    const first = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect(first.source).toBe('network')
    expect(first.value).toMatchObject({ post: 'hello' })
    expect(await store.get(`http:${base.replaceAll(':', '%3A')}/post`)).toStrictEqual(body) // the very bytes the server sent, under the URL with its `:` escaped
    expect((await requests())[0]!.accept).toBe(STOWAGE_MEDIA_TYPE)

    const second = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect(second.source).toBe('revalidated')
    expect((await requests())[1]!.ifNoneMatch).toBe(first.etag)
    expect(second.value).toStrictEqual(first.value)

    await serve(createCodec().encode({ post: 'changed' }))
    const third = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect([third.source, third.value]).toStrictEqual(['network', { post: 'changed' }])

    await control('state?failWith=500')
    expect((await fetchCachedWithInfo(`${base}/post`, { cache })).source).toBe('stale')
    await control('state?offline=1') // the server now cuts every connection to the resource
    const offline = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect([offline.source, offline.value]).toStrictEqual(['offline', { post: 'changed' }])
    await store.close()
  })

  it('refuses what is not an envelope, and says when nothing is cached and the network fails', async () => {
    const store = createIdbStore({ dbName: `fetch-${Math.random()}` })
    const cache = createCache({ store })
    await serve(new TextEncoder().encode('{"json":true}'))
    await expect(fetchCachedWithInfo(`${base}/json`, { cache })).rejects.toMatchObject({ code: StowageErrorCode.BAD_MAGIC })
    expect(await cache.getBytes(`${base}/json`)).toBeUndefined()
    await control('state?offline=1')
    await expect(fetchCachedWithInfo(`${base}/nothing`, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    await store.close()
  })
})
