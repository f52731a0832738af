import { createCache, createCodec, createMemoryStore, inspect, StowageErrorCode, withoutTags, withValidator, type Cache } from '@stowage/core'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { fetchCached, fetchCachedWithInfo, STOWAGE_MEDIA_TYPE } from '../src/index.js'
import { nodeHttp, type Running } from './servers.js'

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

// A server cache behind node:http, and lists for recordingFetch.
async function origin(version = 0): Promise<{ server: Cache; url: (key: string) => string; statuses: number[]; conditional: Array<string | null> }> {
  const server = createCache({ namespace: 'origin', version })
  const statuses: number[] = []
  const conditional: Array<string | null> = []
  running = await nodeHttp(server, (key) => ({ key, loadedAt: 1 }))
  return { server, url: (key) => `${running!.url}/entries/${key}`, statuses, conditional }
}

// fetch that records the status and If-None-Match of each exchange.
function recordingFetch(statuses: number[], conditional: Array<string | null>): typeof fetch {
  return async (input, init) => {
    conditional.push(new Headers(init?.headers).get('If-None-Match'))
    const response = await fetch(input, init)
    statuses.push(response.status)
    return response
  }
}

describe('fetchCached', () => {
  it('refuses a small envelope that asks more work than its size allows, inflated or not, and keeps nothing', async () => {
    const { server, url } = await origin()
    // 250,000 empty objects in a few hundred bytes, from a writer that allows 10,000 units a byte.
    await server.setBytes('bomb', createCodec({ maxWorkPerByte: 10_000 }).encode(Array.from({ length: 250_000 }, () => ({}))))
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    for (const inflate of [false, true]) {
      await expect(fetchCachedWithInfo(url('bomb'), { cache, inflate })).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    }
    expect(await cache.getBytes(url('bomb'))).toBeUndefined()
  })

  it("keeps a deflated envelope as it came for a cache whose codec does not deflate (its ETag is the server's), and revalidates it", async () => {
    const { server, url, statuses, conditional } = await origin()
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, title: `post ${i}` }))
    await server.set('posts', rows)
    // compress: 'never' would keep acceptBytes' envelopes inflated; fetchCached chose the form already.
    const cache = createCache({ store: createMemoryStore(), namespace: 'client', codec: { compress: 'never' } })
    const options = { cache, fetch: recordingFetch(statuses, conditional), inflate: false }
    const first = await fetchCachedWithInfo(url('posts'), options)
    expect(inspect(first.bytes).compression).toBe('deflate-raw')
    expect(new Uint8Array((await cache.getBytes(url('posts')))!)).toStrictEqual(new Uint8Array(first.bytes))
    expect(await fetchCachedWithInfo(url('posts'), options)).toMatchObject({ source: 'revalidated', value: rows })
    expect(statuses).toStrictEqual([200, 304])
  })

  it('gives the value deep-frozen from the network and from the stored copy alike when the in-process tier freezes, unfrozen when it does not', async () => {
    const { server, url } = await origin()
    await server.set('post', { title: 'Hello', tags: [{ name: 'a' }] })
    for (const local of [true, { freeze: false }] as const) {
      const cache = createCache({ store: createMemoryStore(), namespace: 'client', local })
      const first = await fetchCachedWithInfo<{ tags: Array<{ name: string }> }>(url('post'), { cache })
      const second = await fetchCachedWithInfo<{ tags: Array<{ name: string }> }>(url('post'), { cache })
      const frozen = local === true
      expect([first.source, second.source]).toStrictEqual(['network', 'revalidated'])
      expect([Object.isFrozen(first.value), Object.isFrozen(first.value.tags[0]), Object.isFrozen(second.value), Object.isFrozen(second.value.tags[0])]).toStrictEqual([frozen, frozen, frozen, frozen])
    }
  })

  it("stores the envelope as received with the server's ETag in its header, then revalidates with it (304)", async () => {
    const { server, url, statuses, conditional } = await origin()
    await server.set('post', { title: 'Hello', at: new Date(0) })
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    const options = { cache, fetch: recordingFetch(statuses, conditional) }
    const first = await fetchCachedWithInfo(url('post'), options)
    expect(first).toMatchObject({ value: { title: 'Hello', at: new Date(0) }, source: 'network' })
    // The bytes kept are the bytes served, with the server's ETag in the header; on Node getBytes hands them out as a Buffer.
    const kept = new Uint8Array((await cache.getBytes(url('post')))!)
    expect(kept).toStrictEqual(new Uint8Array(first.bytes))
    expect(first.etag).toMatch(/^"s256-[\w-]{22}"$/)
    expect(inspect(kept).validator).toStrictEqual({ kind: 'etag', value: first.etag })
    expect(new Uint8Array(withValidator(kept, undefined))).toStrictEqual(new Uint8Array(withoutTags((await server.getBytes('post'))!)))
    const second = await fetchCachedWithInfo(url('post'), options)
    expect(second).toMatchObject({ value: { title: 'Hello', at: new Date(0) }, source: 'revalidated', etag: first.etag })
    expect(statuses).toStrictEqual([200, 304])
    expect(conditional).toStrictEqual([null, first.etag])
    // One record per URL: no second key holds the ETag.
    const keys: string[] = []
    for await (const key of cache.store.keys!('')) keys.push(key)
    expect(keys).toHaveLength(1)
    expect(cache.stats()).toMatchObject({ misses: 1, sets: 1, hits: 1 })
  })

  it('serves the stored copy when the server is gone (offline) or errs (stale); throws STORE_ERROR with nothing stored', async () => {
    const { server, url } = await origin()
    await server.set('k', 'v')
    const cache = createCache({ namespace: 'c' })
    const address = url('k')
    expect(await fetchCached(address, { cache })).toBe('v')
    const failing: typeof fetch = async () => new Response('boom', { status: 500 })
    expect(await fetchCachedWithInfo(address, { cache, fetch: failing })).toMatchObject({ value: 'v', source: 'stale' })
    await running!.close()
    running = undefined
    expect(await fetchCachedWithInfo(address, { cache })).toMatchObject({ value: 'v', source: 'offline' })
    await expect(fetchCached(`${address}-other`, { cache })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    await expect(fetchCached(address, { cache: createCache(), fetch: failing })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })

  it('treats a damaged stored copy as none: fetched again in full, never a value from bad bytes', async () => {
    const { server, url, statuses, conditional } = await origin()
    await server.set('k', { n: 1 })
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'c' })
    const options = { cache, fetch: recordingFetch(statuses, conditional) }
    const address = url('k')
    await fetchCached(address, options)
    const full = `c:${address.replaceAll('%', '%25').replaceAll(':', '%3A')}`
    const damaged = (await store.get(full))!.slice()
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 1
    await store.set(full, damaged)
    expect(await fetchCachedWithInfo(address, options)).toMatchObject({ value: { n: 1 }, source: 'network' })
    // The conditional request goes out while the copy is decoded; its 304 says nothing once the
    // copy turns out damaged, so the URL is asked again without a validator.
    expect(statuses).toStrictEqual([200, 304, 200])
    expect(conditional[1]).not.toBeNull()
    expect(conditional[2]).toBeNull()
    expect(Buffer.from((await store.get(full))!).equals(Buffer.from(damaged))).toBe(false)
  })

  it('goes through the Cache: schema version and migrate, schemas; what the cache cannot use is refused and never stored', async () => {
    const { server, url } = await origin(1)
    await server.set('user', { name: 'Ada' })
    const migrated = createCache({ namespace: 'm', version: 2, migrate: (v) => ({ ...(v as object), migrated: true }) })
    expect(await fetchCached(url('user'), { cache: migrated })).toStrictEqual({ name: 'Ada', migrated: true })
    const strict = createCache({ namespace: 's', version: 1, schemas: { '*': z.object({ name: z.string(), age: z.number() }) } })
    await expect(fetchCached(url('user'), { cache: strict })).rejects.toMatchObject({ code: StowageErrorCode.SCHEMA_MISMATCH })
    expect(await strict.getBytes(url('user'))).toBeUndefined()
    const json: typeof fetch = async () => new Response('{"name":"Ada"}', { headers: { 'Content-Type': 'application/json' } })
    await expect(fetchCached('http://x/json', { cache: migrated, fetch: json })).rejects.toMatchObject({ code: StowageErrorCode.BAD_MAGIC })
  })

  it('refuses a body over maxBytes: before reading it when Content-Length says so, else after at most maxBytes + one chunk', async () => {
    const cache = createCache({ namespace: 'limits' })
    const maxBytes = 1024 * 1024
    const CHUNK = 64 * 1024
    // A body of 1 GiB that is only ever made as far as it is read.
    const huge = (withLength: boolean) => {
      let pulled = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += CHUNK
          controller.enqueue(new Uint8Array(CHUNK))
          if (pulled >= 2 ** 30) controller.close()
        },
      }, { highWaterMark: 0 })
      const headers: Record<string, string> = { 'Content-Type': STOWAGE_MEDIA_TYPE }
      if (withLength) headers['Content-Length'] = String(2 ** 30)
      return { fetch: (async () => new Response(body, { headers })) as typeof fetch, pulled: () => pulled }
    }
    const declared = huge(true)
    await expect(fetchCached('http://x/a', { cache, maxBytes, fetch: declared.fetch })).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    expect(declared.pulled()).toBeLessThanOrEqual(CHUNK)
    const undeclared = huge(false)
    await expect(fetchCached('http://x/b', { cache, maxBytes, fetch: undeclared.fetch })).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    expect(undeclared.pulled()).toBeLessThanOrEqual(maxBytes + CHUNK)
    expect(await cache.getBytes('http://x/b')).toBeUndefined()
    // The default limit is the codec's maxBytes plus room for the header.
    expect(createCodec().options.maxBytes).toBe(64 * 1024 * 1024)
  })
})
