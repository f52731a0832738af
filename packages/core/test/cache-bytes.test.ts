import { describe, expect, it } from 'vitest'
import { createCache, createCodec, createMemoryStore, inspect, StowageErrorCode, trainDictionary, withValidator } from '../src/index.js'

describe('Cache: envelopes from elsewhere', () => {
  it('acceptBytes opens an envelope as get would, stores it, and leaves a tag stamp behind', async () => {
    const server = createCache({ namespace: 'server', version: 2 })
    await server.set('k', { v: 1 }, { tags: ['t'] })
    const sent = (await server.getBytes('k'))!
    expect(inspect(sent).tags).toBeDefined()
    const store = createMemoryStore()
    const client = createCache({ store, namespace: 'client', version: 3, migrate: (value) => ({ ...(value as object), migrated: true }) })
    expect(await client.acceptBytes('k', sent)).toStrictEqual({ v: 1, migrated: true })
    const kept = (await store.get('client:k'))!
    expect(inspect(kept).tags).toBeUndefined()
    expect(inspect(kept).schemaVersion).toBe(2)
    expect(await client.get('k')).toStrictEqual({ v: 1, migrated: true })
  })

  it('acceptBytes refuses, and never stores, what this cache cannot use', async () => {
    const store = createMemoryStore()
    const client = createCache({ store, namespace: 'c', version: 1 })
    const damaged = createCodec().encode('hello')
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 1
    await expect(client.acceptBytes('a', damaged)).rejects.toMatchObject({ code: StowageErrorCode.CHECKSUM_MISMATCH })
    await expect(client.acceptBytes('a', new Uint8Array([1, 2, 3]))).rejects.toMatchObject({ code: StowageErrorCode.BAD_MAGIC })
    await expect(client.acceptBytes('a', createCodec({ schemaVersion: 5 }).encode('newer'))).rejects.toMatchObject({ code: StowageErrorCode.UNSUPPORTED_VERSION })
    await expect(client.acceptBytes('a', createCodec().encode('older, no migrate'))).rejects.toMatchObject({ code: StowageErrorCode.UNSUPPORTED_VERSION })
    expect(await store.get('c:a')).toBeUndefined()
  })
})

describe('Cache: acceptBytes keeps a deflated envelope in the form its codec would have written', () => {
  // A server's envelope: deflated, as Stowage on Node deflates from 1 KiB.
  const value = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] })) }
  // These tests also run in Chromium, where a codec's default threshold is the browser's: both are explicit.
  const asNode = { compressThreshold: 1024 } // the default of a codec on Node
  const asBrowser = { compressThreshold: 256 * 1024 } // the default of a codec in a browser
  const sent = withValidator(createCodec(asNode).encode(value), { kind: 'etag', value: '"v1"' })

  it('inflated where the codec would not deflate a payload that size: same header, same value, read without inflating', async () => {
    expect(inspect(sent).compression).toBe('deflate-raw')
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'b', codec: asBrowser })
    expect(await cache.acceptBytes('k', sent)).toStrictEqual(value)
    const kept = (await store.get('b:k'))!
    expect(inspect(kept)).toMatchObject({ compression: 'none', payloadLength: inspect(sent).payloadLength, validator: { kind: 'etag', value: '"v1"' } })
    // Read back through a cache whose codec could not inflate at all: the kept bytes need none.
    expect(createCodec().decode(kept)).toStrictEqual(value)
    expect(await createCache({ store, namespace: 'b' }).get('k')).toStrictEqual(value)
    // compress: 'never' keeps everything inflated too.
    const never = createMemoryStore()
    await createCache({ store: never, codec: { compress: 'never' } }).acceptBytes('k', sent)
    expect(inspect((await never.get('stowage:k'))!).compression).toBe('none')
  })

  it('as it came where the codec would have deflated it, with inflate: false, or deflated against a dictionary', async () => {
    const server = createMemoryStore()
    await createCache({ store: server, namespace: 's', codec: asNode }).acceptBytes('k', sent)
    expect(Array.from((await server.get('s:k'))!)).toStrictEqual(Array.from(sent))
    const asked = createMemoryStore()
    await createCache({ store: asked, namespace: 'a', codec: asBrowser }).acceptBytes('k', sent, { inflate: false })
    expect(Array.from((await asked.get('a:k'))!)).toStrictEqual(Array.from(sent))
    const forced = createMemoryStore()
    await createCache({ store: forced, namespace: 'f', codec: asNode }).acceptBytes('k', sent, { inflate: true })
    expect(inspect((await forced.get('f:k'))!).compression).toBe('none')
    const samples = Array.from({ length: 40 }, (_, i) => ({ id: i, kind: 'sample', text: `the sample number ${i} of a dictionary` }))
    const codec = createCodec({ dictionaries: [trainDictionary(samples, { size: 2048 })] })
    const withDictionary = codec.encode(samples)
    expect(inspect(withDictionary).compression).toBe('deflate-raw-dictionary')
    const kept = createMemoryStore()
    expect(await createCache({ store: kept, namespace: 'd', codec }).acceptBytes('k', withDictionary, { inflate: true })).toStrictEqual(samples)
    expect(Array.from((await kept.get('d:k'))!)).toStrictEqual(Array.from(withDictionary))
  })

  it('a small envelope that asks more work than its size allows is refused, not kept large where reads would allow it', async () => {
    // 250,000 empty objects in a few hundred bytes, deflated by a writer that allows 10,000 units a byte.
    const bomb = createCodec({ ...asNode, maxWorkPerByte: 10_000 }).encode(Array.from({ length: 250_000 }, () => ({})))
    expect(inspect(bomb)).toMatchObject({ compression: 'deflate-raw' })
    expect(bomb.length).toBeLessThan(1000)
    expect(() => createCodec().decode(bomb)).toThrow(expect.objectContaining({ code: StowageErrorCode.LIMIT_EXCEEDED }))
    expect(() => createCodec().inflateEnvelope(bomb)).toThrow(expect.objectContaining({ code: StowageErrorCode.LIMIT_EXCEEDED }))
    await expect(createCodec().inflateEnvelopeAsync(bomb)).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    const store = createMemoryStore()
    await expect(createCache({ store, namespace: 'b', codec: asBrowser }).acceptBytes('k', bomb)).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    await expect(createCache({ store, namespace: 'n' }).acceptBytes('k', bomb, { inflate: true })).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    expect(await store.get('b:k')).toBeUndefined()
    expect(await store.get('n:k')).toBeUndefined()
  })

  it('damaged deflated bytes are refused as before, and a bad inflate option is an INVALID_ARGUMENT', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'x', codec: asBrowser })
    const damaged = sent.slice()
    damaged[damaged.length - 10] = (damaged[damaged.length - 10] as number) ^ 1
    await expect(cache.acceptBytes('k', damaged)).rejects.toMatchObject({ code: StowageErrorCode.CHECKSUM_MISMATCH })
    const cut = sent.subarray(0, sent.length - 5)
    const codecSays = (() => {
      try {
        createCodec().decode(cut)
      } catch (e) {
        return (e as { code: string }).code
      }
    })()
    await expect(cache.acceptBytes('k', cut)).rejects.toMatchObject({ code: codecSays })
    await expect(cache.acceptBytes('k', sent, { inflate: 'yes' as never })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    expect(await store.get('x:k')).toBeUndefined()
  })
})

describe('Cache: openBytes', () => {
  it('opens stored bytes as get would, counting a hit or a miss; a damaged entry is deleted', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'o', version: 2, migrate: (v) => `${String(v)} (migrated)` })
    await createCache({ store, namespace: 'o', version: 1 }).set('k', 'old')
    expect(cache.version).toBe(2)
    expect(await cache.openBytes('k', (await cache.getBytes('k'))!)).toBe('old (migrated)')
    const damaged = (await cache.getBytes('k'))!.slice()
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 1
    await store.set('o:k', damaged)
    expect(await cache.openBytes('k', damaged)).toBeUndefined()
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 })
    await new Promise((r) => setTimeout(r, 10))
    expect(await store.get('o:k')).toBeUndefined()
  })
})

describe('Cache: getBytes follows the rules of get', () => {
  it('an entry of a deleted tag is a miss for getBytes too, and is dropped', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'g' })
    await cache.set('post', { title: 'old' }, { tags: ['posts'] })
    expect(await cache.getBytes('post')).toBeDefined()
    await cache.deleteByTag('posts')
    expect(await cache.getBytes('post')).toBeUndefined()
    await new Promise((r) => setTimeout(r, 10))
    expect(await store.get('g:post')).toBeUndefined()
    await cache.set('post', { title: 'new' }, { tags: ['posts'] })
    expect(createCodec().decode((await cache.getBytes('post'))!)).toStrictEqual({ title: 'new' })
  })

  it('a stale entry is returned as get returns it, with its fresh-until time in the header', async () => {
    const cache = createCache({ namespace: 'g' })
    await cache.getOrSet('k', () => 'v1', { ttl: 10, staleFor: 60_000 })
    await new Promise((r) => setTimeout(r, 20))
    expect(await cache.get('k')).toBe('v1')
    const bytes = (await cache.getBytes('k'))!
    expect(inspect(bytes).freshUntil).toBeLessThan(Date.now())
  })
})
