import { describe, expect, it } from 'vitest'
import {
  createBroadcastInvalidation,
  createCache,
  createMemoryStore,
  decodeInvalidation,
  createCodec,
  INVALIDATION_CODEC_OPTIONS,
  inspect,
  StowageErrorCode,
} from '../src/index.js'
import { breakableStore, cuttableChannels, record, until } from './cache-helpers.js'

describe('Cache: tags', () => {
  it('deleteByTag deletes the entries with that tag, and only those', async () => {
    const cache = createCache({ namespace: 'shop' })
    const misses = record(cache, 'miss')
    await cache.set('product:1', { name: 'pen' }, { tags: ['products', 'brand:acme'] })
    await cache.set('product:2', { name: 'ink' }, { tags: ['products'] })
    await cache.set('brand:acme', { country: 'US' }, { tags: ['brand:acme'] })
    await cache.set('untagged', 1)
    await cache.deleteByTag('products')
    expect(await cache.get('product:1')).toBeUndefined()
    expect(await cache.get('product:2')).toBeUndefined()
    expect(await cache.get('brand:acme')).toStrictEqual({ country: 'US' })
    expect(await cache.get('untagged')).toBe(1)
    expect(misses.map((m) => [m.key, m.reason])).toStrictEqual([['product:1', 'invalidated'], ['product:2', 'invalidated']])
    // Written again after the deletion: current again.
    await cache.set('product:1', { name: 'pen v2' }, { tags: ['products'] })
    expect(await cache.get('product:1')).toStrictEqual({ name: 'pen v2' })
    await cache.deleteByTag(['brand:acme', 'products'])
    expect(await cache.get('product:1')).toBeUndefined()
    expect(await cache.get('brand:acme')).toBeUndefined()
  })

  it('stamps the envelope with each tag and its generation; a deleted entry is dropped from the store', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'n' })
    await cache.set('k', 'v', { tags: ['t'] })
    const stamp = inspect((await store.get('n:k'))!).tags
    expect([...stamp!.keys()]).toStrictEqual(['t'])
    const generation = createCodec(INVALIDATION_CODEC_OPTIONS).decode((await store.get('n:#tag:t'))!)
    expect(stamp!.get('t')).toBe(generation)
    await cache.deleteByTag('t')
    expect(createCodec(INVALIDATION_CODEC_OPTIONS).decode((await store.get('n:#tag:t'))!)).not.toBe(generation)
    expect(await cache.get('k')).toBeUndefined()
    await until(async () => (await store.get('n:k')) === undefined)
  })

  it('getOrSet with tags: the loaded value is tagged; a tag deleted while the loader runs makes that value a miss', async () => {
    const cache = createCache({ namespace: 'g' })
    expect(await cache.getOrSet('a', () => 1, { tags: ['t'] })).toBe(1)
    await cache.deleteByTag('t')
    expect(await cache.getOrSet('a', () => 2, { tags: ['t'] })).toBe(2)
    expect(await cache.get('a')).toBe(2)
    let release!: () => void
    const slow = cache.getOrSet('b', () => new Promise<string>((r) => (release = () => r('old data'))), { tags: ['t'] })
    await until(async () => release !== undefined)
    await cache.deleteByTag('t')
    release()
    expect(await slow).toBe('old data') // the caller still gets its answer
    expect(await cache.get('b')).toBeUndefined() // but it may predate the deletion: not served again
  })

  it('setMany takes tags per entry', async () => {
    const cache = createCache({ namespace: 'm' })
    await cache.setMany([
      { key: 'a', value: 1, tags: ['x'] },
      { key: 'b', value: 2, tags: ['x', 'y'] },
      { key: 'c', value: 3 },
    ])
    await cache.deleteByTag('y')
    expect(await cache.getMany(['a', 'b', 'c'])).toStrictEqual([1, undefined, 3])
  })

  it('a tag belongs to its namespace; tag names never meet user keys', async () => {
    const store = createMemoryStore()
    const parent = createCache({ store, namespace: 'p' })
    const child = parent.withNamespace('c')
    await parent.set('k', 'parent', { tags: ['t'] })
    await child.set('k', 'child', { tags: ['t'] })
    await parent.set('#tag:t', 'a user key that looks like a tag key')
    await child.deleteByTag('t')
    expect(await parent.get('k')).toBe('parent')
    expect(await child.get('k')).toBeUndefined()
    expect(await parent.get('#tag:t')).toBe('a user key that looks like a tag key')
  })

  it('an entry whose tag lost its generation (evicted, cleared) stays deleted instead of coming back', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'e' })
    await cache.set('k', 'v', { tags: ['t'] })
    await store.delete('e:#tag:t')
    expect(await cache.get('k')).toBeUndefined()
  })

  it('local copies: dropped at once in this process and, through the channel, in the others', async () => {
    const store = createMemoryStore()
    const name = `tags-${Math.random()}`
    const channels = [createBroadcastInvalidation(name), createBroadcastInvalidation(name)]
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 'l', local: { ttl: 60_000 }, invalidation }))
    await a!.set('k', 'v', { tags: ['t'] })
    expect(await b!.get('k')).toBe('v')
    const hits = record(b!, 'hit')
    expect(await b!.get('k')).toBe('v')
    expect(hits.map((h) => h.tier)).toStrictEqual(['local'])
    await b!.deleteByTag('t')
    expect(await b!.get('k')).toBeUndefined()
    expect(await a!.get('k')).toBe('v') // a's copy waits for the message…
    await until(async () => (await a!.get('k')) === undefined) // …which drops it
    await Promise.all(channels.map((c) => c.close!()))
  })

  it('a subscriber that missed the message drops its local copies when its channel reports the gap', async () => {
    const store = createMemoryStore()
    const { channels, state, mend } = cuttableChannels(2)
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 'gap', local: { ttl: 60_000 }, invalidation }))
    await a!.set('k', 'v', { tags: ['t'] })
    await a!.set('plain', 1)
    expect(await b!.get('k')).toBe('v')
    expect(await b!.get('plain')).toBe(1)
    state.cut = true
    await a!.deleteByTag('t')
    await a!.set('plain', 2)
    expect(await b!.get('k')).toBe('v') // the message was lost: b cannot know yet
    mend()
    expect(await b!.get('k')).toBeUndefined()
    expect(await b!.get('plain')).toBe(2)
  })

  it('announces deleted tags on the channel as FORMAT.md says', async () => {
    const sent: Uint8Array[] = []
    const cache = createCache({ namespace: 'ann', invalidation: { publish: async (m) => void sent.push(m), subscribe: () => () => {} } })
    await cache.deleteByTag(['a', 'b'])
    expect(decodeInvalidation(createCodec(INVALIDATION_CODEC_OPTIONS), sent[0]!)).toMatchObject({ op: 'tag', keys: ['ann:#tag:a', 'ann:#tag:b'] })
  })

  it('refuses bad tags with INVALID_ARGUMENT', async () => {
    const cache = createCache()
    for (const tags of [[], 'not-an-array', [''], ['a\ud800'], ['x'.repeat(256)], [1], Array.from({ length: 256 }, (_, i) => `t${i}`)]) {
      await expect(cache.set('k', 1, { tags: tags as string[] }), JSON.stringify(tags)).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
      await expect(cache.getOrSet('k', () => 1, { tags: tags as string[] })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    }
    await expect(cache.deleteByTag('')).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    await expect(cache.deleteByTag([])).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
  })

  it('store failures: deleteByTag and tagged sets reject with STORE_ERROR; a tagged read is a miss; getOrSet still answers', async () => {
    const { store, state } = breakableStore()
    const cache = createCache({ store, namespace: 'f', local: false, breaker: false })
    await cache.set('k', 'v', { tags: ['t'] })
    state.broken = true
    await expect(cache.deleteByTag('t')).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    await expect(cache.set('k', 'v2', { tags: ['t'] })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    expect(await cache.get('k')).toBeUndefined()
    const errors = record(cache, 'error')
    expect(await cache.getOrSet('new', () => 'loaded', { tags: ['t'] })).toBe('loaded')
    expect(errors.map((e) => e.operation)).toContain('getOrSet')
    state.broken = false
    expect(await cache.get('k')).toBe('v') // the failed deleteByTag deleted nothing
  })
})

describe('createBroadcastInvalidation', () => {
  it('refuses with UNSUPPORTED_RUNTIME where the runtime has no BroadcastChannel', () => {
    const saved = globalThis.BroadcastChannel
    try {
      ;(globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined
      expect(() => createBroadcastInvalidation('x')).toThrow(expect.objectContaining({ code: StowageErrorCode.UNSUPPORTED_RUNTIME }))
    } finally {
      globalThis.BroadcastChannel = saved
    }
  })
})
