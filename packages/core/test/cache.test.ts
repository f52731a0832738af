import { describe, expect, it } from 'vitest'
import {
  createBroadcastInvalidation,
  createCache,
  createCodec,
  createMemoryStore,
  FORMAT_VERSION,
  inspect,
  StowageError,
  StowageErrorCode,
  type Cache,
  type CacheEvents,
  type Store,
} from '../src/index.js'

import { breakableStore, cuttableChannels, heldWrites, record, sleep, storedKeys, until } from './cache-helpers.js'

describe('Cache: basics', () => {
  it('gets what was set, misses with undefined, deletes and tells has', async () => {
    const cache = createCache({ namespace: 'app' })
    expect(await cache.get('user:1')).toBeUndefined()
    const user = { id: 1, name: 'Ada', roles: new Set(['admin']), since: new Date(1700000000000), karma: 10n ** 20n }
    await cache.set('user:1', user)
    expect(await cache.get('user:1')).toStrictEqual(user)
    expect(await cache.has('user:1')).toBe(true)
    expect(await cache.delete('user:1')).toBe(true)
    expect(await cache.delete('user:1')).toBe(false)
    expect(await cache.has('user:1')).toBe(false)
    await cache.close()
  })

  it('applies the default TTL and a per-call TTL', async () => {
    const cache = createCache({ ttl: 60 })
    await cache.set('short', 1)
    await cache.set('long', 2, { ttl: 5_000 })
    await sleep(150)
    expect(await cache.get('short')).toBeUndefined()
    expect(await cache.get('long')).toBe(2)
  })

  it('says its default TTL (cache.ttl), the same in every namespace; undefined without one', () => {
    const cache = createCache({ ttl: 60_000 })
    expect([cache.ttl, cache.withNamespace('users').ttl]).toStrictEqual([60_000, 60_000])
    expect(createCache().ttl).toBeUndefined()
  })

  it('stores the codec’s bytes: compact envelopes, never strings', async () => {
    const store = createMemoryStore()
    // The same threshold on every platform (browsers deflate only from 256 KiB by default).
    const cache = createCache({ store, namespace: 'app', codec: { compressThreshold: 1024 } })
    const rows = Array.from({ length: 1000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
    await cache.set('rows', rows)
    const bytes = (await store.get('app:rows')) as Uint8Array
    expect(bytes).toBeInstanceOf(Uint8Array)
    expect(bytes.length).toBeLessThan(JSON.stringify(rows).length * 0.01)
    expect(createCodec().decode(bytes)).toStrictEqual(rows)
  })

  it('refuses bad arguments with INVALID_ARGUMENT', async () => {
    const cache = createCache()
    const code = (p: Promise<unknown>) => p.then(() => 'resolved', (e: StowageError) => e.code)
    expect(await code(cache.get(''))).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(await code(cache.set('k', 1, { ttl: -1 }))).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(await code(cache.getOrSet('k', () => 1, { staleFor: 10 }))).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(await code(cache.getOrSet('k', 'not a function' as never))).toBe(StowageErrorCode.INVALID_ARGUMENT)
    for (const options of [{ namespace: 'a::b' }, { namespace: 'a:' }, { namespace: 'a b' }, { namespace: '' }, { ttl: 0 }, { version: -1 }, { readErrors: 'maybe' }, { migrate: 5 }]) {
      expect(() => createCache(options as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
    }
    expect(() => cache.withNamespace(':y')).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
  })

  it('closes the memory store it created, never a store it was given', async () => {
    const given = createMemoryStore()
    await createCache({ store: given }).close()
    await given.set('still', new Uint8Array([1]))
    const own = createCache()
    await own.close()
    await expect(own.store.get('x')).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })
})

describe('Cache: namespaces', () => {
  it('prefix keys once, through every method', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'app' })
    await cache.set('a', 1)
    await cache.setMany([{ key: 'b', value: 2 }])
    await cache.getOrSet('c', () => 3)
    const users = cache.withNamespace('users')
    await users.set('1', 'ada')
    await users.withNamespace('admins').getOrSet('2', () => 'grace')
    expect(await storedKeys(store)).toStrictEqual(['app:a', 'app:b', 'app:c', 'app:users:1', 'app:users:admins:2'])
    expect(await cache.getMany(['a', 'b', 'c', 'users:1'])).toStrictEqual([1, 2, 3, undefined])
    expect(users.namespace).toBe('app:users')
    expect(await createCache({ store, namespace: 'app:users' }).get('1')).toBe('ada')
  })

  it('never let a key reach into a child namespace: `b:c` under `a` is not `c` under `a:b`', async () => {
    const store = createMemoryStore()
    const parent = createCache({ store, namespace: 'a' })
    const child = parent.withNamespace('b')
    await parent.set('b:c', 'parent')
    await parent.set('100%', 'percent')
    await child.set('c', 'child')
    expect(await parent.get('b:c')).toBe('parent')
    expect(await child.get('c')).toBe('child')
    expect(await storedKeys(store)).toStrictEqual(['a:100%25', 'a:b%3Ac', 'a:b:c'])
    await child.clear()
    expect(await child.get('c')).toBeUndefined()
    expect(await parent.get('b:c')).toBe('parent')
    expect(await parent.get('100%')).toBe('percent')
  })

  it('let two caches share a store: same keys apart, clear() removes only its own', async () => {
    const store = createMemoryStore()
    const app = createCache({ store, namespace: 'app' })
    const app2 = createCache({ store, namespace: 'app2' })
    await app.set('k', 'app')
    await app2.set('k', 'app2')
    await app.withNamespace('child').set('k', 'child')
    expect(await app.get('k')).toBe('app')
    expect(await app2.get('k')).toBe('app2')
    await app.clear()
    expect(await app.get('k')).toBeUndefined()
    expect(await app.withNamespace('child').get('k')).toBeUndefined()
    expect(await app2.get('k')).toBe('app2')
  })

  it('clear() works over a store that can only list and delete, and fails clearly over one that cannot', async () => {
    const inner = createMemoryStore()
    const listing: Store = { name: 'listing', get: (k) => inner.get(k), set: (k, v, o) => inner.set(k, v, o), delete: (k) => inner.delete(k), keys: (p) => inner.keys(p), deleteMany: (k) => inner.deleteMany(k) }
    const cache = createCache({ store: listing, namespace: 'n' })
    await cache.set('a', 1)
    await createCache({ store: listing, namespace: 'other' }).set('a', 1)
    await cache.clear()
    expect(await storedKeys(inner)).toStrictEqual(['other:a'])
    const bare = createCache({ store: breakableStore().store })
    await expect(bare.clear()).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
  })
})

describe('Cache: batches', () => {
  for (const [name, makeStore] of [
    ['a store with batch abilities', () => createMemoryStore()],
    ['a store without them', () => breakableStore().store],
  ] as const) {
    it(`getMany, setMany, deleteMany over ${name}`, async () => {
      const cache = createCache({ store: makeStore(), namespace: 'b' })
      await cache.setMany([
        { key: 'x', value: { n: 1 } },
        // A TTL with room for a slow browser between the write and the first read (50 ms was not).
        { key: 'y', value: [2], ttl: 500 },
        { key: 'z', value: 'three' },
      ])
      expect(await cache.getMany(['x', 'missing', 'y', 'z'])).toStrictEqual([{ n: 1 }, undefined, [2], 'three'])
      await sleep(700)
      expect(await cache.getMany(['y'])).toStrictEqual([undefined])
      expect(await cache.deleteMany(['x', 'z', 'missing'])).toBe(2)
      expect(await cache.getMany(['x', 'z'])).toStrictEqual([undefined, undefined])
    })
  }
})

describe('Cache: getOrSet', () => {
  it('returns the cached value without calling the loader', async () => {
    const cache = createCache()
    await cache.set('k', 'cached')
    let calls = 0
    expect(await cache.getOrSet('k', () => (calls++, 'loaded'))).toBe('cached')
    expect(calls).toBe(0)
  })

  it('coalesces concurrent misses of one key into one loader call', async () => {
    const cache = createCache()
    let calls = 0
    const loader = async () => {
      calls++
      await sleep(30)
      return { loaded: calls }
    }
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.getOrSet('hot', loader)))
    expect(calls).toBe(1)
    for (const r of results) expect(r).toStrictEqual({ loaded: 1 })
    expect(await cache.get('hot')).toStrictEqual({ loaded: 1 })
    expect(cache.stats().loads).toBe(1)
  })

  it('gives a loader error to every waiter and caches nothing', async () => {
    const cache = createCache()
    const boom = new Error('database down')
    let calls = 0
    const failing = async () => {
      calls++
      await sleep(10)
      throw boom
    }
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => cache.getOrSet('k', failing)))
    expect(outcomes.every((o) => o.status === 'rejected' && o.reason === boom)).toBe(true)
    expect(calls).toBe(1)
    expect(await cache.get('k')).toBeUndefined()
    expect(await cache.getOrSet('k', () => 'recovered')).toBe('recovered')
  })

  it('stale-while-revalidate: serves the stale value at once while one refresh runs', async () => {
    const cache = createCache()
    let version = 0
    const loader = async () => {
      version++
      await sleep(20)
      return `v${version}`
    }
    expect(await cache.getOrSet('k', loader, { ttl: 40, staleFor: 5_000 })).toBe('v1')
    await sleep(60) // now stale
    const stale = await Promise.all([cache.getOrSet('k', loader, { ttl: 40, staleFor: 5_000 }), cache.getOrSet('k', loader, { ttl: 40, staleFor: 5_000 })])
    expect(stale).toStrictEqual(['v1', 'v1'])
    await sleep(60) // the one refresh has landed
    expect(version).toBe(2)
    expect(await cache.getOrSet('k', loader, { ttl: 40, staleFor: 5_000 })).toBe('v2')
    expect(cache.stats().staleHits).toBeGreaterThanOrEqual(2)
  })

  it('stale-while-revalidate: callers that come while the refresh runs get the stale value too', async () => {
    const cache = createCache()
    let calls = 0
    const loader = async () => {
      calls++
      await sleep(100)
      return `v${calls}`
    }
    expect(await cache.getOrSet('k', loader, { ttl: 30, staleFor: 5_000 })).toBe('v1')
    await sleep(50) // now stale
    expect(await cache.getOrSet('k', loader, { ttl: 30, staleFor: 5_000 })).toBe('v1') // starts the refresh
    const later = await Promise.all([1, 2, 3].map(() => cache.getOrSet('k', loader, { ttl: 30, staleFor: 5_000 })))
    expect(later).toStrictEqual(['v1', 'v1', 'v1'])
    expect(calls).toBe(2)
    await sleep(150)
    expect(await cache.getOrSet('k', loader, { ttl: 30, staleFor: 5_000 })).toBe('v2')
  })

  it('stale-while-revalidate: a failed refresh keeps the stale value until it truly expires', async () => {
    // A stale window of 1.5 s: wide enough that a loaded CI machine's late timers stay inside it.
    const cache = createCache()
    const errors = record(cache, 'error')
    const settings = { ttl: 30, staleFor: 1_500 }
    const stored = Date.now()
    expect(await cache.getOrSet('k', () => 'old', settings)).toBe('old')
    await sleep(50)
    const failing = () => Promise.reject(new Error('upstream 500'))
    expect(await cache.getOrSet('k', failing, settings)).toBe('old')
    await sleep(20)
    // The loader's failure, never mistaken for the store's.
    expect(errors.map((e) => [e.operation, e.error.code, (e.error.cause as Error).message])).toStrictEqual([['refresh', StowageErrorCode.LOADER_FAILED, 'upstream 500']])
    expect(await cache.getOrSet('k', failing, settings)).toBe('old')
    await sleep(stored + settings.ttl + settings.staleFor + 50 - Date.now()) // past ttl + staleFor: gone
    await expect(cache.getOrSet('k', failing, settings)).rejects.toThrow('upstream 500')
  })

  it('grace: past ttl the old value answers for a failing loader, to every caller, until grace ends', async () => {
    const cache = createCache()
    const errors = record(cache, 'error')
    expect(await cache.getOrSet('k', () => 'old', { ttl: 30, grace: 300 })).toBe('old')
    await sleep(50) // expired, in grace
    let calls = 0
    const failing = async () => {
      calls++
      await sleep(20)
      throw new Error('upstream 500')
    }
    const answers = await Promise.all([1, 2, 3].map(() => cache.getOrSet('k', failing, { ttl: 30, grace: 300 })))
    expect(answers).toStrictEqual(['old', 'old', 'old'])
    expect(calls).toBe(1)
    expect(errors.map((e) => [e.operation, e.error.code, (e.error.cause as Error).message])).toStrictEqual([['getOrSet', StowageErrorCode.LOADER_FAILED, 'upstream 500']])
    // A working loader replaces it at once (no background: grace is not stale-while-revalidate).
    expect(await cache.getOrSet('k', () => 'new', { ttl: 30, grace: 300 })).toBe('new')
    await sleep(400) // past ttl + grace: gone
    await expect(cache.getOrSet('k', failing, { ttl: 30, grace: 300 })).rejects.toThrow('upstream 500')
  })

  it('soft timeout: a slow loader is answered by the value in grace, and its value lands later', async () => {
    const cache = createCache()
    await cache.getOrSet('k', () => 'old', { ttl: 20, grace: 5_000 })
    await sleep(40)
    const slow = async () => {
      await sleep(500)
      return 'new'
    }
    const started = Date.now()
    const answers = await Promise.all([cache.getOrSet('k', slow, { ttl: 20, grace: 5_000, softTimeout: 30 }), sleep(10).then(() => cache.getOrSet('k', slow, { ttl: 20, grace: 5_000 }))])
    expect(answers).toStrictEqual(['old', 'old'])
    expect(Date.now() - started).toBeLessThan(400)
    await sleep(600)
    expect(await cache.get('k')).toBe('new')
  })

  it('hard timeout: without an old value every waiter gets TIMEOUT, and the value still lands', async () => {
    const cache = createCache()
    const slow = async () => {
      await sleep(120)
      return 'late'
    }
    const results = await Promise.allSettled([cache.getOrSet('k', slow, { hardTimeout: 30 }), cache.getOrSet('k', slow)])
    for (const r of results) expect(r).toMatchObject({ status: 'rejected', reason: { code: StowageErrorCode.TIMEOUT } })
    // Past the hard timeout the key is free: a loader that hangs holds no key for good.
    expect(await cache.getOrSet('other', () => new Promise(() => {}), { hardTimeout: 10 }).catch((e: StowageError) => e.code)).toBe(StowageErrorCode.TIMEOUT)
    expect(await cache.getOrSet('other', () => 'next run')).toBe('next run')
    await sleep(150)
    expect(await cache.get('k')).toBe('late')
    expect(cache.stats().loads).toBe(3) // one for both waiters of k, two for other
  })

  it('refuses bad timeouts and grace without ttl', async () => {
    const cache = createCache()
    for (const options of [{ grace: 10 }, { ttl: 10, softTimeout: 0 }, { hardTimeout: -1 }, { ttl: 10, grace: Infinity }]) {
      await expect(cache.getOrSet('k', () => 1, options)).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    }
  })

  it('writes fresh-until into the envelope, and the store TTL covers ttl + staleFor', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'n' })
    const before = Date.now()
    await cache.getOrSet('k', () => 1, { ttl: 1000, staleFor: 60 })
    const freshUntil = inspect((await store.get('n:k')) as Uint8Array).freshUntil as number
    expect(freshUntil).toBeGreaterThanOrEqual(before + 1000)
    expect(freshUntil).toBeLessThanOrEqual(Date.now() + 1001)
  })
})

describe('Cache: schema versions', () => {
  it('migrates older values on read, treats newer ones and unmigratable ones as misses', async () => {
    const store = createMemoryStore()
    const v1 = createCache({ store, namespace: 'u', version: 1 })
    await v1.set('ada', { name: 'Ada Lovelace' })
    const v2 = createCache({
      store,
      namespace: 'u',
      version: 2,
      migrate: (value, from) => {
        expect(from).toBe(1)
        const [first, last] = (value as { name: string }).name.split(' ')
        return { first, last }
      },
    })
    expect(await v2.get('ada')).toStrictEqual({ first: 'Ada', last: 'Lovelace' })
    const misses = record(createCache({ store, namespace: 'u', version: 2 }), 'miss')
    const strict = createCache({ store, namespace: 'u', version: 2 })
    strict.on('miss', (e) => misses.push(e))
    expect(await strict.get('ada')).toBeUndefined()
    await v2.set('grace', { first: 'Grace', last: 'Hopper' })
    const v1Misses = record(v1, 'miss')
    expect(await v1.get('grace')).toBeUndefined()
    expect(misses.map((m) => m.reason)).toStrictEqual(['older-version'])
    expect(v1Misses.map((m) => m.reason)).toStrictEqual(['newer-version'])
    expect(inspect((await store.get('u:grace')) as Uint8Array).schemaVersion).toBe(2)
  })

  it('reports a migrate that throws as MIGRATION_FAILED with its error as the cause', async () => {
    const store = createMemoryStore()
    await createCache({ store, version: 1 }).set('k', 1)
    const problem = new Error('no such field')
    const v2 = createCache({
      store,
      version: 2,
      migrate: () => {
        throw problem
      },
    })
    const errors = record(v2, 'error')
    const misses = record(v2, 'miss')
    expect(await v2.get('k')).toBeUndefined()
    expect(errors.map((e) => [e.operation, e.error.code, e.error.cause])).toStrictEqual([['migrate', StowageErrorCode.MIGRATION_FAILED, problem]])
    expect(misses.map((m) => m.reason)).toStrictEqual(['older-version'])
  })
})

describe('Cache: failures', () => {
  it('by default a read failure is a miss plus an error event; a write failure rejects with STORE_ERROR', async () => {
    const { store, state } = breakableStore()
    const cache = createCache({ store, local: false })
    const errors = record(cache, 'error')
    await cache.set('k', 1)
    state.broken = true
    expect(await cache.get('k')).toBeUndefined()
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ operation: 'get', key: 'k' })
    expect(errors[0]!.error.code).toBe(StowageErrorCode.STORE_ERROR)
    expect((errors[0]!.error.cause as Error).message).toBe('connection refused')
    const rejected = await cache.set('k', 2).catch((e: unknown) => e)
    expect(StowageError.isInstance(rejected) && rejected.code).toBe(StowageErrorCode.STORE_ERROR)
    state.broken = false
    expect(await cache.get('k')).toBe(1)
    expect(cache.stats().errors).toBe(1)
  })

  it('can fail closed on reads and open on writes', async () => {
    const { store, state } = breakableStore()
    const cache = createCache({ store, readErrors: 'throw', writeErrors: 'ignore' })
    const errors = record(cache, 'error')
    state.broken = true
    await expect(cache.get('k')).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    await expect(cache.set('k', 1)).resolves.toBeUndefined()
    expect(errors.map((e) => e.operation)).toStrictEqual(['set'])
  })

  it('getOrSet returns the loaded value even when the store cannot keep it', async () => {
    const { store, state } = breakableStore()
    const cache = createCache({ store })
    const errors = record(cache, 'error')
    state.broken = true
    expect(await cache.getOrSet('k', () => 'fresh from the source')).toBe('fresh from the source')
    expect(errors.map((e) => e.operation)).toStrictEqual(['getOrSet', 'getOrSet'])
  })

  it('a circuit breaker stops calling a failing store, then probes it once and closes', async () => {
    const { store, state } = breakableStore()
    let calls = 0
    const counted: Store = { ...store, name: 'counted', get: (k) => (calls++, store.get(k)), set: (k, v, o) => (calls++, store.set(k, v, o)) }
    const cache = createCache({ store: counted, local: false, breaker: { failures: 2, window: 1_000, coolDown: 100 } })
    const states: string[] = []
    cache.on('breaker', (e) => states.push(e.error ? `${e.state}: ${(e.error.cause as Error).message}` : e.state))
    state.broken = true
    for (let i = 0; i < 5; i++) expect(await cache.getOrSet('k', () => i)).toBe(i)
    // The first getOrSet's read and write fail: the circuit opens, and no call reaches the store after.
    expect(calls).toBe(2)
    expect(states).toStrictEqual(['open: connection refused'])
    await expect(cache.set('k', 'x')).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR, message: expect.stringContaining('circuit') })
    await sleep(120)
    expect(await cache.get('k')).toBeUndefined() // the probe fails: open again
    expect(calls).toBe(3)
    state.broken = false
    await sleep(120)
    await cache.set('k', 'back') // the probe succeeds: closed
    expect(await cache.get('k')).toBe('back')
    expect(states).toStrictEqual(['open: connection refused', 'half-open', 'open: connection refused', 'half-open', 'closed'])
    expect(() => createCache({ breaker: { failures: 0 } })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
  })

  it('a probe that never settles opens the circuit again after probeTimeout, and a healthy store closes it', async () => {
    const { store, state } = breakableStore()
    const hung = { on: false }
    const hanging: Store = { ...store, name: 'hanging', set: (k, v, o) => (hung.on ? new Promise<void>(() => {}) : store.set(k, v, o)) }
    const cache = createCache({ store: hanging, local: false, breaker: { failures: 1, window: 1_000, coolDown: 50, probeTimeout: 50 } })
    const states: string[] = []
    cache.on('breaker', (e) => states.push(e.state))
    state.broken = true
    await expect(cache.set('k', 1)).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    state.broken = false
    hung.on = true
    await sleep(60)
    // The probe: a call that never returns, answered by STORE_ERROR once its deadline passes.
    await expect(cache.set('k', 2)).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR, message: expect.stringContaining('probe') })
    hung.on = false
    await sleep(60)
    for (let i = 0; i < 20; i++) await cache.set('k', i)
    expect(await cache.get('k')).toBe(19)
    expect(states).toStrictEqual(['open', 'half-open', 'open', 'half-open', 'closed'])
    expect(() => createCache({ breaker: { probeTimeout: 0 } })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
  })

  it('treats corrupt bytes as a miss, reports them and deletes the entry', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'c' })
    const errors = record(cache, 'error')
    await store.set('c:bad', new Uint8Array([0xc1, 1, 0, 0, 1, 2, 3, 4, 0x90]))
    await store.set('c:json', new TextEncoder().encode('{"not":"stowage"}'))
    expect(await cache.get('bad')).toBeUndefined()
    expect(await cache.get('json')).toBeUndefined()
    expect(errors.map((e) => e.error.code)).toStrictEqual([StowageErrorCode.CHECKSUM_MISMATCH, StowageErrorCode.BAD_MAGIC])
    await sleep(0)
    expect(await store.get('c:bad')).toBeUndefined()
    expect(await store.get('c:json')).toBeUndefined()
  })

  it('keeps intact entries this reader cannot use (an extension, a dictionary, a limit it lacks) and says why', async () => {
    class Money {
      constructor(readonly cents: number) {}
    }
    const money = { type: 1, class: Money, encode: (m: Money) => m.cents, decode: (c: unknown) => new Money(c as number) }
    const store = createMemoryStore()
    const writer = createCache({ store, namespace: 'n', codec: { extensions: [money] } })
    await writer.set('price', new Money(250))
    await writer.set('big', 'x'.repeat(5000))
    const reader = createCache({ store, namespace: 'n', codec: { maxBytes: 1000 } })
    const misses = record(reader, 'miss')
    const errors = record(reader, 'error')
    expect(await reader.get('price')).toBeUndefined()
    expect(await reader.get('big')).toBeUndefined()
    expect(misses.map((m) => m.reason)).toStrictEqual(['unsupported', 'too-large'])
    expect(errors.map((e) => e.error.code)).toStrictEqual([StowageErrorCode.UNSUPPORTED_TYPE, StowageErrorCode.LIMIT_EXCEEDED])
    await sleep(0)
    expect(await writer.get('price')).toStrictEqual(new Money(250))
    expect(await writer.get('big')).toHaveLength(5000)
  })

  it('checks values read from the store against their key’s schema (zod, valibot): a value that fails is a miss', async () => {
    const { z } = await import('zod')
    const v = await import('valibot')
    const store = createMemoryStore()
    const writer = createCache({ store, namespace: 's' })
    await writer.set('user:1', { id: 1, name: 'Ada' })
    await writer.set('user:2', { id: 'two' })
    await writer.set('tags', ['a', 'b'])
    await writer.set('free', { anything: true })
    const reader = createCache({
      store,
      namespace: 's',
      schemas: { 'user:*': z.object({ id: z.number(), name: z.string().transform((s) => s.toUpperCase()) }), tags: v.array(v.string()) },
    })
    const misses = record(reader, 'miss')
    const errors = record(reader, 'error')
    expect(await reader.get('user:1')).toStrictEqual({ id: 1, name: 'ADA' }) // as the schema outputs it
    expect(await reader.get('user:2')).toBeUndefined()
    expect(await reader.get('tags')).toStrictEqual(['a', 'b'])
    expect(await (reader as unknown as Cache).get('free')).toStrictEqual({ anything: true }) // no pattern: not checked
    expect(misses.map((m) => [m.key, m.reason])).toStrictEqual([['user:2', 'invalid']])
    expect(errors.map((e) => e.error.code)).toStrictEqual([StowageErrorCode.SCHEMA_MISMATCH])
    expect(errors[0]!.error.message).toMatch(/id/)
    expect(await writer.get('user:2')).toStrictEqual({ id: 'two' }) // kept for the writers that know it
    expect(() => createCache({ schemas: { 'x:*': { parse: () => 1 } } as never })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
  })

  it('rejects values the codec cannot store, whatever the write policy', async () => {
    const cache = createCache({ writeErrors: 'ignore' })
    await expect(cache.set('f', () => 1)).rejects.toMatchObject({ code: StowageErrorCode.UNSUPPORTED_TYPE })
  })
})

describe('Cache: stats and events', () => {
  it('counts hits, misses, sets, deletes and bytes per namespace', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 's', measureJson: true, codec: { compressThreshold: 1024 } })
    const other = cache.withNamespace('other')
    const value = Array.from({ length: 200 }, (_, i) => ({ id: i, label: `row ${i}` }))
    await cache.set('v', value)
    await cache.get('v')
    await cache.get('nope')
    await cache.delete('v')
    await other.get('x')
    const stats = cache.stats()
    expect(stats).toMatchObject({ hits: 1, misses: 1, sets: 1, deletes: 1, errors: 0, staleHits: 0, loads: 0 })
    expect(stats.bytesJson).toBe(new TextEncoder().encode(JSON.stringify(value)).length)
    expect(stats.bytesMsgpack).toBeLessThan(stats.bytesJson as number)
    expect(stats.bytesStored).toBeLessThan(stats.bytesMsgpack)
    expect(other.stats()).toMatchObject({ hits: 0, misses: 1, sets: 0 })
    expect(createCache().stats().bytesJson).toBeUndefined()
  })

  it('emits events with namespace and key; unsubscribes; survives a throwing listener', async () => {
    const cache = createCache({ namespace: 'e' })
    const seen: string[] = []
    cache.on('set', () => {
      throw new Error('a broken listener')
    })
    const off = cache.on('hit', (e) => seen.push(`hit ${e.namespace} ${e.key} ${e.stale}`))
    cache.on('miss', (e) => seen.push(`miss ${e.key} ${e.reason}`))
    cache.on('load', (e) => seen.push(`load ${e.key}`))
    await cache.getOrSet('k', () => 1)
    await cache.get('k')
    off()
    await cache.get('k')
    expect(seen).toStrictEqual(['miss k absent', 'load k', 'hit e k false'])
  })

  it('says which tier a hit came from, the payload size of a set, and loads that failed', async () => {
    const cache = createCache({ store: createMemoryStore(), local: true })
    const seen: unknown[] = []
    cache.on('hit', (e) => seen.push(['hit', e.tier]))
    cache.on('set', (e) => seen.push(['set', e.bytes > 0, e.payloadBytes]))
    cache.on('load', (e) => seen.push(['load', e.error === undefined ? 'ok' : (e.error as Error).message]))
    await cache.set('k', 'abc')
    await cache.get('k')
    const other = createCache({ store: cache.store, local: false })
    other.on('hit', (e) => seen.push(['other hit', e.tier]))
    await other.get('k')
    await expect(cache.getOrSet('bad', () => Promise.reject(new Error('no')))).rejects.toThrow('no')
    // 'abc' is a fixstr: one header byte and three of text.
    expect(seen).toStrictEqual([['set', true, 4], ['hit', 'local'], ['other hit', 'store'], ['load', 'no']])
  })
})

describe('Cache: bundles', () => {
  it('keep related fields under one key, each an envelope, with one TTL', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'app' })
    const post = cache.bundle('post:42')
    await post.set('title', 'Hello')
    await post.set('body', { paragraphs: ['a', 'b'] })
    await post.set('views', 10n)
    expect(await post.get('title')).toBe('Hello')
    expect(await post.getAll()).toStrictEqual(new Map<string, unknown>([['title', 'Hello'], ['body', { paragraphs: ['a', 'b'] }], ['views', 10n]]))
    expect(await storedKeys(store)).toStrictEqual(['app:post%3A42'])
    expect(inspect((await store.getField('app:post%3A42', 'title')) as Uint8Array).formatVersion).toBe(2) // a one-string value needs no string table
    expect(await post.delete('title')).toBe(true)
    expect(await post.get('title')).toBeUndefined()
    await post.set('short', 1, { ttl: 50 })
    await sleep(120)
    expect((await post.getAll()).size).toBe(0)
  })

  it('drop a corrupt field and report it, and refuse a store without bundles', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'n' })
    const errors = record(cache, 'error')
    await cache.bundle('b').set('good', 1)
    await store.setField('n:b', 'bad', new Uint8Array([1, 2, 3]))
    expect(await cache.bundle('b').getAll()).toStrictEqual(new Map([['good', 1]]))
    expect(errors.map((e) => [e.operation, e.key])).toStrictEqual([['bundle', 'b#bad']])
    await sleep(0)
    expect(await store.getField('n:b', 'bad')).toBeUndefined()
    expect(() => createCache({ store: breakableStore().store }).bundle('b')).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
  })
})

describe('Cache: local tier and invalidation', () => {

  it('serves repeated reads from the local tier without touching the store', async () => {
    const remote = createMemoryStore()
    let remoteGets = 0
    const counting: Store = { ...remote, name: 'counting', get: (k) => (remoteGets++, remote.get(k)), set: (k, v, o) => remote.set(k, v, o), delete: (k) => remote.delete(k) }
    const cache = createCache({ store: counting, local: true, namespace: 'l' })
    await cache.set('k', { big: 'value' })
    for (let i = 0; i < 5; i++) expect(await cache.get('k')).toStrictEqual({ big: 'value' })
    expect(remoteGets).toBe(0)
  })

  /** A memory store that counts its reads and calls itself something else (as Redis would). */
  function countingStore() {
    const remote = createMemoryStore()
    const counts = { gets: 0 }
    const store: Store = {
      name: 'counting',
      get: (k) => (counts.gets++, remote.get(k)),
      getWithTtl: (k) => (counts.gets++, remote.getWithTtl(k)),
      set: (k, v, o) => remote.set(k, v, o),
      delete: (k) => remote.delete(k),
    }
    return { remote, store, counts }
  }

  // It once kept the object given to set() itself, so the caller's later changes reached every reader (issue #20 item 8).
  it('keeps decoded values by reference: a hit returns the very object it keeps (a copy of what was set), with no store read and no decode', async () => {
    const { store, counts } = countingStore()
    const cache = createCache({ store, namespace: 'r' }) // on by default in front of a store that is not the memory store
    const value = { rows: [1, 2, 3], at: new Date(0) }
    await cache.set('k', value)
    const kept = await cache.get('k')
    expect(kept).toStrictEqual(value)
    expect(kept).not.toBe(value)
    expect(await cache.get('k')).toBe(kept)
    expect(await cache.getOrSet('k', () => ({ rows: [] }))).toBe(kept)
    expect(counts.gets).toBe(0)
    expect(cache.stats()).toMatchObject({ hits: 3, misses: 0 })
    const other = createCache({ store, namespace: 'r' }) // another process: one store read, then local
    const first = await other.get('k')
    expect(first).toStrictEqual(value)
    expect(await other.get('k')).toBe(first)
    expect(counts.gets).toBe(1)
  })

  it('is off in front of the memory store unless asked for, and refuses a Store as its option', async () => {
    const cache = createCache({ store: createMemoryStore() })
    const value = { a: 1 }
    await cache.set('k', value)
    expect(await cache.get('k')).not.toBe(value)
    expect(() => createCache({ store: createMemoryStore(), local: createMemoryStore() as never })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
    for (const local of [{ maxEntries: 0 }, { ttl: 1.5 }, { maxBytes: -1 }, { freeze: 'yes' }]) {
      expect(() => createCache({ local: local as never })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
    }
  })

  it('never keeps a copy longer than the store entry has left', async () => {
    const { store, counts } = countingStore()
    await createCache({ store, namespace: 't', local: false }).set('k', 'short-lived', { ttl: 60 })
    const reader = createCache({ store, namespace: 't', local: { ttl: 60_000 } })
    expect(await reader.get('k')).toBe('short-lived')
    expect(await reader.get('k')).toBe('short-lived')
    expect(counts.gets).toBe(1)
    await sleep(100)
    expect(await reader.get('k')).toBeUndefined()
    expect(counts.gets).toBe(2)
  })

  it('drops entries not used lately past maxEntries or maxBytes', async () => {
    const { store, counts } = countingStore()
    const cache = createCache({ store, namespace: 'e', local: { maxEntries: 2 } })
    for (const k of ['a', 'b', 'c']) await cache.set(k, k)
    expect(await cache.get('c')).toBe('c')
    expect(await cache.get('b')).toBe('b')
    expect(counts.gets).toBe(0)
    expect(await cache.get('a')).toBe('a') // evicted: read from the store
    expect(counts.gets).toBe(1)
    // An entry read since it was last passed gets a second chance; one nobody read leaves.
    const clock = createCache({ store, namespace: 'c', local: { maxEntries: 2 } })
    await clock.set('x', 'x')
    await clock.set('y', 'y')
    expect(await clock.get('x')).toBe('x')
    await clock.set('z', 'z')
    const before = counts.gets
    expect(await clock.get('x')).toBe('x')
    expect(await clock.get('z')).toBe('z')
    expect(counts.gets).toBe(before)
    expect(await clock.get('y')).toBe('y')
    expect(counts.gets).toBe(before + 1)
    const small = createCache({ store, namespace: 'b', local: { maxBytes: 100 } })
    await small.set('big', 'x'.repeat(500))
    const reads = counts.gets
    expect(await small.get('big')).toHaveLength(500)
    expect(counts.gets).toBe(reads + 1) // larger than the whole budget: never kept
  })

  it('freezes plain objects and arrays on request; bytes stored as they are drop the local copy', async () => {
    const { store } = countingStore()
    const cache = createCache({ store, namespace: 'f', local: { freeze: true } })
    const value = { list: [{ n: 1 }], bytes: new Uint8Array(4), map: new Map([[1, { deep: true }]]) }
    await cache.set('k', value)
    const got = (await cache.get('k')) as typeof value
    expect(() => {
      got.list[0]!.n = 2
    }).toThrow(TypeError)
    expect(() => got.list.push({ n: 3 })).toThrow(TypeError)
    expect(Object.isFrozen(got.map.get(1))).toBe(true)
    got.bytes[0] = 1 // typed arrays cannot be frozen: they stay writable
    await cache.setBytes('k', createCodec().encode('from elsewhere'))
    expect(await cache.get('k')).toBe('from elsewhere')
  })

  it('without a channel another process keeps serving its stale local copy (the problem)', async () => {
    const remote = createMemoryStore()
    const a = createCache({ store: remote, local: true, namespace: 'x' })
    const b = createCache({ store: remote, local: true, namespace: 'x' })
    await a.set('k', 1)
    expect(await b.get('k')).toBe(1)
    await a.set('k', 2)
    await sleep(50)
    expect(await b.get('k')).toBe(1)
  })

  it('with a channel, a set, delete or clear in one cache drops the others’ local copies', async () => {
    const remote = createMemoryStore()
    const name = `t-${Math.random()}`
    const channels = [createBroadcastInvalidation(name), createBroadcastInvalidation(name)]
    const [a, b] = channels.map((invalidation) => createCache({ store: remote, local: true, namespace: 'x', invalidation }))
    await a!.set('k', 1)
    await a!.set('other', 'o')
    expect(await b!.get('k')).toBe(1)
    expect(await b!.get('other')).toBe('o')
    await a!.set('k', 2)
    await until(async () => (await b!.get('k')) === 2)
    await a!.delete('k')
    await until(async () => (await b!.get('k')) === undefined)
    await remote.set('x:other', (await remote.get('x:other'))!) // still in b's local tier
    await a!.clear()
    await until(async () => (await b!.get('other')) === undefined)
    await a!.close()
    await b!.close()
    await Promise.all(channels.map((c) => c.close!()))
  })

  it('publishes versioned messages anyone can read (FORMAT.md)', async () => {
    const sent: Uint8Array[] = []
    const cache = createCache({ namespace: 'm', invalidation: { publish: async (m) => void sent.push(m), subscribe: () => () => {} } })
    await cache.set('a', 1)
    await cache.deleteMany(['a', 'b'])
    await cache.clear()
    const decoded = sent.map((m) => createCodec().decode(m)) as Array<{ origin: unknown; since?: unknown }>
    expect(decoded.map((m) => ({ ...m, origin: typeof m.origin, ...(m.since === undefined ? {} : { since: typeof m.since }) }))).toStrictEqual([
      { v: 1, origin: 'string', op: 'set', keys: ['m:a'] },
      { v: 1, origin: 'string', op: 'delete', keys: ['m:a', 'm:b'] },
      { v: 1, origin: 'string', op: 'clear', keys: ['m:'], since: 'number' },
    ])
  })

  it('a read begun while it deletes such a late write again keeps nothing of it in the local tier', async () => {
    const memory = createMemoryStore()
    // Writes land when let go; deletes take 10 ms; reads see the store at once and answer 30 ms later.
    const { store: slow, letGo } = heldWrites(memory, {
      delete: async (key: string) => (await sleep(10), memory.delete(key)),
      get: async (key: string) => {
        const found = await memory.get(key)
        await sleep(30)
        return found
      },
      getWithTtl: async (key: string) => {
        const found = await memory.getWithTtl!(key)
        await sleep(30)
        return found
      },
    })
    const { channels } = cuttableChannels(2)
    const a = createCache({ store: memory, namespace: 'app', invalidation: channels[0] })
    const b = createCache({ store: slow, namespace: 'app', local: true, invalidation: channels[1] })
    const user = b.withNamespace('user-1')
    const writing = user.set('me', 'user 1')
    await sleep(5)
    await a.withNamespace('user-1').clear()
    letGo()
    await writing
    await user.get('me') // may find the late write in the store before it is deleted again
    await until(async () => (await memory.get('app:user-1:me')) === undefined)
    expect(await user.get('me')).toBeUndefined()
    await Promise.all([a.close(), b.close()])
  })

  it('deletes again what it wrote under a prefix another cache cleared, from when that clear began (a write that landed after it)', async () => {
    const memory = createMemoryStore()
    // A store whose writes from cache b land only when let go: after a's clear.
    const { store: slow, letGo } = heldWrites(memory)
    const { channels } = cuttableChannels(2)
    const a = createCache({ store: memory, namespace: 'app', invalidation: channels[0] })
    const b = createCache({ store: slow, namespace: 'app', invalidation: channels[1] })
    await memory.set('app:user-1:old', createCodec().encode('written before the clear'))
    await memory.set('app:user-2:kept', createCodec().encode('another prefix'))
    const writing = [b.withNamespace('user-1').set('me', 'user 1'), b.withNamespace('user-1').setMany([{ key: 'many', value: 'user 1' }]), b.withNamespace('user-2').set('me', 'user 2')]
    await sleep(5)
    await a.withNamespace('user-1').clear()
    letGo()
    await Promise.all(writing)
    await until(async () => (await memory.get('app:user-1:me')) === undefined && (await memory.get('app:user-1:many')) === undefined)
    expect(await memory.get('app:user-1:old')).toBeUndefined()
    // Under another prefix nothing is touched.
    expect(await b.withNamespace('user-2').get('me')).toBe('user 2')
    expect(await memory.get('app:user-2:kept')).toBeDefined()
    await Promise.all([a.close(), b.close()])
  })
})

describe('Cache: envelope bytes as they are', () => {
  it('setBytes stores an envelope made elsewhere without re-encoding; getBytes returns it', async () => {
    const server = createCodec({ schemaVersion: 0 })
    const envelope = server.encode({ from: 'the server', rows: [1, 2, 3] })
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'b' })
    await cache.setBytes('k', envelope)
    expect(await store.get('b:k')).toStrictEqual(new Uint8Array(envelope))
    // On Node both the codec and getBytes hand out Buffers.
    expect(await cache.getBytes('k')).toStrictEqual(envelope)
    expect(await cache.get('k')).toStrictEqual({ from: 'the server', rows: [1, 2, 3] })
    expect(cache.stats().sets).toBe(1)
    await expect(cache.setBytes('bad', new TextEncoder().encode('{"json":1}'))).rejects.toMatchObject({ code: StowageErrorCode.BAD_MAGIC })
    expect(await cache.getBytes('missing')).toBeUndefined()
  })
})
