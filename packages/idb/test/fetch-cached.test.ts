import { createCache, createCodec, inspect, StowageErrorCode, withValidator } from '@stowage/core'
import { beforeEach, describe, expect, inject, it } from 'vitest'
import { HINTS_ITEM } from '@stowage/http'
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

// A cache over a fresh IndexedDB database, after the resource is given `value` to serve.
async function servedTo(value: unknown) {
  const store = createIdbStore({ dbName: `fetch-${Math.random()}` })
  await serve(createCodec().encode(value))
  return { store, cache: createCache({ store, namespace: 'http' }) }
}

beforeEach(() => {
  base = `${inject('envelopeServer')}/${Math.random().toString(36).slice(2)}`
})

describe('fetchCached', () => {
  it("stores the received bytes with the server's ETag in the header, revalidates with it, and serves the copy offline", async () => {
    const body = createCodec().encode({ post: 'hello', comments: Array.from({ length: 50 }, (_, i) => ({ i, text: `comment ${i}` })) })
    await serve(body)
    const store = createIdbStore({ dbName: `fetch-${Math.random()}` })
    const cache = createCache({ store, namespace: 'http' })
    const first = await fetchCachedWithInfo(`${base}/post`, { cache })
    expect(first.source).toBe('network')
    expect(first.value).toMatchObject({ post: 'hello' })
    // the very bytes the server sent, with its ETag in the header, under the URL with its `:` escaped (the store's own copy: a plain Uint8Array)
    const kept = (await store.get(`http:${base.replaceAll(':', '%3A')}/post`))!
    expect(inspect(kept).validator).toStrictEqual({ kind: 'etag', value: first.etag })
    expect(new Uint8Array(withValidator(kept, undefined))).toStrictEqual(new Uint8Array(body))
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

  it('keeps a deflated envelope inflated in browsers (as it came in Node), and revalidates it with the server\'s ETag', async () => {
    const body = createCodec({ compress: 'always' }).encode({ rows: Array.from({ length: 300 }, (_, i) => ({ i, text: `row ${i}` })) })
    await serve(body)
    const store = createIdbStore({ dbName: `fetch-${Math.random()}` })
    const cache = createCache({ store, namespace: 'http' })
    const first = await fetchCachedWithInfo(`${base}/rows`, { cache })
    const kept = (await store.get(`http:${base.replaceAll(':', '%3A')}/rows`))!
    const browser = typeof document !== 'undefined'
    expect(inspect(kept)).toMatchObject({ compression: browser ? 'none' : 'deflate-raw', validator: { kind: 'etag', value: first.etag } })
    if (!browser) expect(new Uint8Array(withValidator(kept, undefined))).toStrictEqual(new Uint8Array(body))
    const second = await fetchCachedWithInfo(`${base}/rows`, { cache })
    expect(second.source).toBe('revalidated')
    expect(second.value).toStrictEqual(first.value)
    const [sent, revalidation] = await requests()
    expect(sent!.ifNoneMatch).toBeUndefined()
    expect(revalidation!.ifNoneMatch).toBe(first.etag)
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

  it('never writes a no-store response to IndexedDB: returns it and drops the older copy', async () => {
    const { store, cache } = await servedTo({ me: 'a' })
    expect((await fetchCachedWithInfo(`${base}/me`, { cache })).kept).toBe(true)
    await control('state?cacheControl=no-store')
    await serve(createCodec().encode({ me: 'b' }))
    expect(await fetchCachedWithInfo(`${base}/me`, { cache })).toMatchObject({ source: 'network', value: { me: 'b' }, kept: false })
    expect(await store.get(`http:${base.replaceAll(':', '%3A')}/me`)).toBeUndefined()
    await control('state?offline=1')
    await expect(fetchCachedWithInfo(`${base}/me`, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    await store.close()
  })

  it('deletes the copy from IndexedDB on a 404 and rejects with the status, instead of serving it', async () => {
    const { store, cache } = await servedTo({ me: 'a' })
    await fetchCachedWithInfo(`${base}/me`, { cache })
    await control('state?failWith=404')
    await expect(fetchCachedWithInfo(`${base}/me`, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR, cause: { status: 404 } })
    expect(await cache.getBytes(`${base}/me`)).toBeUndefined()
    await store.close()
  })

  it('a revalidation the browser refuses (the server does not answer the CORS preflight) is retried without If-None-Match and reported, never served as offline', async () => {
    const { store, cache } = await servedTo({ v: 1 })
    await fetchCachedWithInfo(`${base}/cors`, { cache })
    await control('state?refusePreflight=1')
    await serve(createCodec().encode({ v: 2 }))
    const again = await fetchCachedWithInfo(`${base}/cors`, { cache })
    expect([again.source, again.value]).toStrictEqual(['network', { v: 2 }])
    // Only a browser page on another origin sends a preflight (here: vitest's page); Node has no CORS.
    if (typeof window !== 'undefined') expect(again.problem?.message).toContain('CORS')
    else expect(again.problem).toBeUndefined()
    await store.close()
  })
  it.skipIf(typeof localStorage === 'undefined')('remembers the kept copy\'s validator in localStorage: after a reload the request leaves with it, and a scope leaves none', async () => {
    await serve(createCodec().encode({ v: 1 }))
    const dbName = `fetch-${Math.random()}`
    const store = createIdbStore({ dbName })
    const first = await fetchCachedWithInfo(`${base}/hinted`, { cache: createCache({ store, namespace: 'http' }) })
    const kept = (await store.get(`http:${base.replaceAll(':', '%3A')}/hinted`))!
    const validator = inspect(kept).validator?.value ?? first.etag
    const hints = () => JSON.parse(localStorage.getItem(HINTS_ITEM)!) as Record<string, string>
    expect(hints()[`http\u0000${base}/hinted`]).toBe(`e${validator}`)
    await store.close()
    // As after a reload: a new store over the same database.
    const reopened = createIdbStore({ dbName })
    const second = await fetchCachedWithInfo(`${base}/hinted`, { cache: createCache({ store: reopened, namespace: 'http' }) })
    expect([second.source, second.value]).toStrictEqual(['revalidated', { v: 1 }])
    expect((await requests())[1]!.ifNoneMatch).toBe(validator)
    // The request carries what localStorage says, not what the database holds (it leaves before
    // the database has answered); the stored copy's validator differs, so the 200 is taken.
    const id = `http\u0000${base}/hinted`
    localStorage.setItem(HINTS_ITEM, JSON.stringify({ ...hints(), [id]: 'e"elsewhere"' }))
    const third = await fetchCachedWithInfo(`${base}/hinted`, { cache: createCache({ store: reopened, namespace: 'http' }) })
    expect([third.source, third.value]).toStrictEqual(['network', { v: 1 }])
    expect((await requests())[2]!.ifNoneMatch).toBe('"elsewhere"')
    expect(hints()[id]).toBe(`e${inspect((await reopened.get(`http:${base.replaceAll(':', '%3A')}/hinted`))!).validator?.value ?? third.etag}`)
    await fetchCachedWithInfo(`${base}/scoped`, { cache: createCache({ store: reopened, namespace: 'http' }), scope: 'user-1' })
    expect(Object.keys(hints()).filter((id) => id.includes('scoped'))).toStrictEqual([])
    await reopened.close()
  })
})
