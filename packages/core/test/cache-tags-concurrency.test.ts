// Under ordinary concurrency (no deletions) the tag book keeps learning, local hits happen, and
// nothing reads as deleted: what the tag-race fixes must not cost (found by a review for regressions).
import { describe, expect, it } from 'vitest'
import { createCache, createMemoryStore, type Store } from '../src/index.js'
import { cuttableChannels, record, sleep } from './cache-helpers.js'

const book = (cache: unknown) => (cache as { shared: { tags: { inFlight: Map<string, unknown>; size: number } } }).shared.tags

describe('Cache: the tag book under ordinary concurrency', () => {
  it('overlapping reads of the same tag, overlapping tagged writes, getOrSet: local hits follow, inFlight returns to 0', async () => {
    const store = createMemoryStore()
    const { channels } = cuttableChannels(2) // a channel like the BroadcastChannel one, that also runs where there is none (workerd)
    const [writer, reader] = channels.map((invalidation) => createCache({ store, namespace: 'tc', local: { ttl: 60_000 }, invalidation }))
    for (let i = 0; i < 50; i++) await writer!.set(`k${i}`, i, { tags: ['all', `g${i % 5}`] })
    // 50 overlapping cold reads in the reader: all tags 'all' in flight at once.
    await Promise.all(Array.from({ length: 50 }, (_, i) => reader!.get(`k${i}`)))
    expect(book(reader).inFlight.size).toBe(0)
    const hits = record(reader!, 'hit')
    await Promise.all(Array.from({ length: 50 }, (_, i) => reader!.get(`k${i}`)))
    await sleep(50)
    expect(hits.filter((h) => h.tier === 'local').length).toBe(50)
    // concurrent tagged writes + reads in the writer
    await Promise.all(Array.from({ length: 50 }, (_, i) => Promise.all([writer!.set(`w${i}`, i, { tags: ['all'] }), writer!.get(`k${i}`), writer!.getOrSet(`o${i}`, async () => { await sleep(1); return i }, { tags: ['all'] })])))
    expect(book(writer).inFlight.size).toBe(0)
    const whits = record(writer!, 'hit')
    const wmiss = record(writer!, 'miss')
    await Promise.all(Array.from({ length: 50 }, (_, i) => Promise.all([writer!.get(`w${i}`), writer!.get(`o${i}`)])))
    await sleep(50) // hit events are delivered after the call returns
    expect(whits.filter((h) => h.tier === 'local').length).toBe(100)
    await Promise.all([writer!.close(), reader!.close()])
  })

  it('a tag read that fails once: later reads learn again and hit locally', async () => {
    const inner = createMemoryStore()
    let failNext = 0
    const store: Store = {
      name: 'flaky',
      get: (k) => inner.get(k),
      set: (k, v, o) => inner.set(k, v, o),
      delete: (k) => inner.delete(k),
      setMany: (e) => inner.setMany!(e),
      deleteMany: (k) => inner.deleteMany!(k),
      getMany: async (keys) => {
        if (failNext > 0 && keys.some((k) => k.includes('#tag:'))) {
          failNext--
          throw new Error('blip')
        }
        return inner.getMany!(keys)
      },
    }
    const a = createCache({ store, namespace: 'tcf', local: { ttl: 60_000 }, breaker: false })
    const b = createCache({ store, namespace: 'tcf', local: { ttl: 60_000 }, breaker: false })
    await a.set('x', 1, { tags: ['t'] })
    failNext = 1
    await Promise.all([b.get('x'), b.get('x'), b.get('x')])
    expect(book(b).inFlight.size).toBe(0)
    await b.get('x')
    const hits = record(b, 'hit')
    await b.get('x')
    await sleep(50)
    expect(hits.map((h) => h.tier)).toStrictEqual(['local'])
  })
})

describe('Cache: first writes of a new tag, concurrently (memory store, no ensureMany)', () => {
  it('entries written at once with a tag nobody used before all read back (one generation is made)', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'tcn', local: false })
    const misses = record(cache, 'miss')
    await Promise.all(Array.from({ length: 20 }, (_, i) => cache.set(`p${i}`, i, { tags: ['products'] })))
    const got = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.get(`p${i}`)))
    await sleep(20)
    console.log('misses', misses.map((m) => m.reason).join(','))
    expect(got).toStrictEqual(Array.from({ length: 20 }, (_, i) => i))
  })
})

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
// A store of the app's own over a memory store (a breaker wraps it in each cache), with a hook before each set.
const ownStore = (inner = createMemoryStore(), hooks: { set?: (k: string) => Promise<void> | void } = {}): Store => ({
  name: 'own',
  get: (k) => inner.get(k),
  set: async (k, v, o) => {
    await hooks.set?.(k)
    return inner.set(k, v, o)
  },
  delete: (k) => inner.delete(k),
  getMany: (keys) => inner.getMany!(keys),
  deleteMany: (keys) => inner.deleteMany!(keys),
})

describe('Cache: a new tag, several caches and a deletion', () => {
  it('two caches of one process over one store of the app\'s own (its calls take 0-4 ms): concurrent first writes all read back', async () => {
    const store = ownStore(createMemoryStore(), { set: () => pause(Math.random() * 4) })
    const a = createCache({ store, namespace: 'n', local: false })
    const b = createCache({ store, namespace: 'n', local: false })
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).set(`p${i}`, i, { tags: ['products'] })))
    const got = await Promise.all(Array.from({ length: 20 }, (_, i) => a.get(`p${i}`)))
    expect(got).toStrictEqual(Array.from({ length: 20 }, (_, i) => i))
  })

  it('a creation whose write fails: the next write creates the tag again and reads back', async () => {
    let fail = 1
    const store = ownStore(createMemoryStore(), {
      set: (k) => {
        if (k.includes('#tag:') && fail-- > 0) throw new Error('blip')
      },
    })
    const a = createCache({ store, namespace: 'n', local: { ttl: 60_000 }, breaker: false })
    const first = await Promise.allSettled([a.set('x', 1, { tags: ['t'] }), a.set('y', 2, { tags: ['t'] })])
    expect(first.map((r) => r.status)).toStrictEqual(['rejected', 'rejected'])
    await a.set('x', 1, { tags: ['t'] })
    expect(await a.get('x')).toBe(1)
  })

  it('a deleteByTag while the tag\'s first generation is being written waits for it: a write after the deletion reads back', async () => {
    let release!: () => void
    let held = false
    const store = ownStore(createMemoryStore(), {
      set: (k) => {
        if (k.includes('#tag:') && !held) {
          held = true
          return new Promise<void>((r) => (release = r))
        }
      },
    })
    const cache = createCache({ store, namespace: 'n', local: false, breaker: false })
    const first = cache.set('a', 1, { tags: ['t'] })
    while (!held) await pause(1)
    const deleting = cache.deleteByTag('t')
    release()
    await Promise.all([first, deleting])
    await cache.set('w', 2, { tags: ['t'] })
    expect(await cache.get('w')).toBe(2)
    expect(await cache.get('a')).toBeUndefined() // written before the deletion
  })
})
