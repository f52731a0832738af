// What other processes' invalidation messages may cost a subscriber: anyone who can publish on
// the channel (another application on the same Redis, say) reaches every subscriber, so a message
// must never grow its memory without bound nor hold its event loop.
import { describe, expect, it } from 'vitest'
import { createCache, createCodec, encodeInvalidation, INVALIDATION_CODEC_OPTIONS, MAX_KEYS_PER_MESSAGE, type Cache, type InvalidationChannel, type InvalidationMessage } from '../src/index.js'
import { LocalTier } from '../src/cache/local-tier.js'
import { TagBook } from '../src/cache/tags.js'
import { record } from './cache-helpers.js'

/** A channel whose messages the test sends itself, as another process would. */
function handChannel() {
  const codec = createCodec(INVALIDATION_CODEC_OPTIONS)
  const listeners: Array<(message: Uint8Array) => void> = []
  const channel: InvalidationChannel = {
    async publish() {},
    subscribe(listener) {
      listeners.push(listener)
      return () => void listeners.splice(listeners.indexOf(listener), 1)
    },
  }
  const send = (op: InvalidationMessage['op'], keys: readonly string[]) => {
    const bytes = encodeInvalidation(codec, { origin: 'another-process', op, keys })
    for (const listener of listeners) listener(bytes)
  }
  return { channel, send }
}

const madeUp = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}${i}:${'x'.repeat(64)}`)

describe('the tag book', () => {
  it('keeps at most maxEntries tags, the least recently learnt leaving first', () => {
    const book = new TagBook(3)
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) book.learn(`n:#tag:${key}`, i)
    expect(book.size).toBe(3)
    // 'a' left: a copy stamped with it is not trusted any more (the store will tell).
    expect(book.current('n:', new Map([['a', 0]]))).toBe(false)
    expect(book.current('n:', new Map([['b', 1], ['d', 3]]))).toBe(true)
    book.learn('n:#tag:b', 1) // learnt again: now the most recent
    book.learn('n:#tag:e', 4)
    expect(book.current('n:', new Map([['b', 1]]))).toBe(true)
    expect(book.current('n:', new Map([['c', 2]]))).toBe(false)
  })

  it('records an announced deletion only for a tag it knows', () => {
    const book = new TagBook(100)
    book.learn('n:#tag:held', 7)
    for (const key of madeUp(MAX_KEYS_PER_MESSAGE, 'n:#tag:')) book.invalidate(key)
    expect(book.size).toBe(1)
    book.invalidate('n:#tag:held')
    expect(book.current('n:', new Map([['held', 7]]))).toBe(false)
  })
})

describe('the local tier by namespace', () => {
  it('clears a namespace with its children, everything for the empty prefix, and nothing for a namespace it does not hold', () => {
    const tier = new LocalTier({})
    const keys = ['a:1', 'a:2', 'a:b:1', 'ab:1', 'a:b%3A1', 'c:1']
    for (const key of keys) tier.set(key, { value: key, freshUntil: undefined }, 1, undefined)
    const held = () => keys.filter((key) => tier.get(key) !== undefined)
    tier.clear('x:')
    tier.clear('a:b:c:')
    expect(held()).toStrictEqual(keys)
    tier.clear('a:b:')
    expect(held()).toStrictEqual(['a:1', 'a:2', 'ab:1', 'a:b%3A1', 'c:1'])
    tier.clear('a:')
    expect(held()).toStrictEqual(['ab:1', 'c:1'])
    tier.clear('')
    expect(held()).toStrictEqual([])
  })
})

describe('Cache: invalidation messages from other processes', () => {
  it('a tag announcement drops local copies stamped with it; made-up tags in the same message change nothing', async () => {
    const { channel, send } = handChannel()
    const cache = createCache({ namespace: 'app', local: { ttl: 60_000 }, invalidation: channel }) as Cache
    await cache.set('held', 'v', { tags: ['t'] })
    await cache.set('other', 'w', { tags: ['u'] })
    const hits = record(cache, 'hit')
    send('tag', [...madeUp(MAX_KEYS_PER_MESSAGE - 1, 'app:#tag:'), 'app:#tag:t'])
    expect(await cache.get('held')).toBe('v')
    expect(await cache.get('other')).toBe('w')
    expect(hits.map((h) => [h.key, h.tier])).toStrictEqual([['held', 'store'], ['other', 'local']])
  })

  it('with a small maxTags, a copy whose tag was let go is read from the store, and deletions are still seen', async () => {
    const { channel, send } = handChannel()
    const cache = createCache({ namespace: 'few', local: { ttl: 60_000, maxTags: 1 }, invalidation: channel }) as Cache
    await cache.set('k1', 1, { tags: ['t1'] })
    await cache.set('k2', 2, { tags: ['t2'] })
    const hits = record(cache, 'hit')
    expect(await cache.get('k2')).toBe(2)
    expect(await cache.get('k1')).toBe(1) // t1 was let go when t2 was learnt: the store tells
    expect(await cache.get('k1')).toBe(1) // learnt again
    expect(hits.map((h) => h.tier)).toStrictEqual(['local', 'store', 'local'])
    await cache.deleteByTag('t2')
    send('tag', ['few:#tag:t1'])
    expect(await cache.get('k1')).toBe(1) // only the message: the store's generation is unchanged
    expect(await cache.get('k2')).toBeUndefined()
    expect(hits.map((h) => h.tier)).toStrictEqual(['local', 'store', 'local', 'store'])
  })

  it('a clear of another namespace leaves local copies; one of this namespace, a parent or a child drops what it covers', async () => {
    const { channel, send } = handChannel()
    const cache = createCache({ namespace: 'org:app', local: { ttl: 60_000 }, invalidation: channel }) as Cache
    const child = cache.withNamespace('child')
    const hits = record(cache, 'hit')
    const childHits = record(child, 'hit')
    const fill = async () => {
      await cache.set('k', 1)
      await child.set('k', 2)
      hits.length = 0
      childHits.length = 0
    }
    // Where each namespace's read of 'k' was answered from.
    const tiers = async () => {
      await cache.get('k')
      await child.get('k')
      return [hits.map((h) => h.tier), childHits.map((h) => h.tier)]
    }
    await fill()
    send('clear', ['other:', 'org:application:', 'org:app:child:deeper:', 'org:app:other-child:'])
    expect(await tiers()).toStrictEqual([['local'], ['local']])
    for (const [prefix, after] of [['org:app:child:', [['local'], ['store']]], ['org:app:', [['store'], ['store']]], ['org:', [['store'], ['store']]], ['', [['store'], ['store']]]] as const) {
      await fill()
      send('clear', [prefix])
      expect([prefix, await tiers()]).toStrictEqual([prefix, after])
    }
  })

  // Before, each clear prefix was compared with every local key: 30 messages × 4,096 × 10,000, seconds.
  it('a subscriber with 10,000 local copies takes messages of thousands of prefixes and made-up tags at once', async () => {
    const { channel, send } = handChannel()
    const cache = createCache({ namespace: 'big', local: { ttl: 600_000 }, invalidation: channel }) as Cache
    await cache.setMany(Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: i, tags: [`t${i}`] })))
    for (let i = 0; i < 15; i++) {
      send('clear', madeUp(MAX_KEYS_PER_MESSAGE, `other${i}:`)) // another application's namespaces
      send('clear', madeUp(MAX_KEYS_PER_MESSAGE, `big:child${i}:`).map((key) => `${key.replace(/:x+$/, '')}:`)) // children it does not hold
      send('tag', madeUp(MAX_KEYS_PER_MESSAGE, `big:#tag:made-up${i}:`))
    }
    const hits = record(cache, 'hit')
    expect(await cache.get('k1')).toBe(1)
    expect(hits.map((h) => h.tier)).toStrictEqual(['local'])
  })
})
