import { createCache, createMemoryStore, StowageErrorCode, type Cache, type Store } from '@stowage/core'
import { afterEach, describe, expect, it } from 'vitest'
import { fetchCachedWithInfo, HINTS_ITEM, MAX_HINTS, scopedCache, signOut, type HintStorage } from '../src/index.js'
import { MAX_HINTS_LENGTH, ValidatorHints } from '../src/validator-hints.js'
import { nodeHttp, type Running } from './servers.js'

// Web Storage's getItem and setItem over a Map (Node has no localStorage; Chromium runs the same
// paths with its own in packages/idb/test/fetch-cached.test.ts).
class MapStorage implements HintStorage {
  readonly items = new Map<string, string>()
  getItem(key: string): string | null {
    return this.items.get(key) ?? null
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value)
  }
}

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

// A server cache behind node:http.
async function origin(): Promise<{ server: Cache; url: (key: string) => string }> {
  const server = createCache({ namespace: 'origin' })
  running = await nodeHttp(server, (key) => ({ key }))
  const { url } = running
  return { server, url: (key) => `${url}/entries/${key}` }
}

type Exchange = { validator: string | null; status?: number }

// fetch that records what each request carried when it left, and then its answer's status.
function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const exchange: Exchange = { validator: new Headers(init?.headers).get('If-None-Match') }
    log.push(exchange)
    const response = await fetch(input, init)
    exchange.status = response.status
    return response
  }
}

// A store whose every call waits until `open()`, then runs in the order it was made: a database
// still opening, as IndexedDB queues what is asked of it meanwhile.
function gatedStore(): { store: Store; open: () => void; inner: Store } {
  const inner = createMemoryStore()
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const store: Store = {
    ...inner,
    name: 'gated',
    get: (key) => gate.then(() => inner.get(key)),
    set: (key, value, options) => gate.then(() => inner.set(key, value, options)),
    delete: (key) => gate.then(() => inner.delete(key)),
    clear: (prefix) => gate.then(() => inner.clear!(prefix)),
  }
  return { store, open, inner }
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('fetchCached with validator hints', () => {
  it('on a first visit sends the request before the store has answered; the next one with the kept copy\'s ETag', async () => {
    const { server, url } = await origin()
    await server.set('post', { title: 'Hello' })
    const storage = new MapStorage()
    const { store, open } = gatedStore()
    const cache = createCache({ store, namespace: 'client' })
    const log: Exchange[] = []
    const first = fetchCachedWithInfo(url('post'), { cache, fetch: recordingFetch(log), validatorHints: storage })
    await tick(50)
    // The store has not answered, and the request is out.
    expect(log).toHaveLength(1)
    open()
    const got = await first
    expect(got).toMatchObject({ value: { title: 'Hello' }, source: 'network', kept: true })
    // Counted as without hints: a miss, then the set.
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 1, sets: 1 })
    expect(JSON.parse(storage.getItem(HINTS_ITEM)!)).toStrictEqual({ [`client\u0000${url('post')}`]: `e${got.etag}`, '\u0001client': 1 })
    const second = await fetchCachedWithInfo(url('post'), { cache, fetch: recordingFetch(log), validatorHints: storage })
    expect(second).toMatchObject({ value: { title: 'Hello' }, source: 'revalidated' })
    expect(log).toStrictEqual([
      { validator: null, status: 200 },
      { validator: got.etag, status: 304 },
    ])
  })

  it('waits for the store without hints (validatorHints: false), with a scope, and for a key it knows nothing of in a namespace it knows', async () => {
    const { server, url } = await origin()
    await server.set('post', 'v')
    await server.set('other', 'w')
    const storage = new MapStorage()
    // The namespace is known: a copy was kept in it.
    await fetchCachedWithInfo(url('other'), { cache: createCache({ namespace: 'client' }), validatorHints: storage })
    const before = storage.getItem(HINTS_ITEM)
    for (const options of [{ validatorHints: false as const }, { validatorHints: storage, scope: 'user-1' }, { validatorHints: storage }]) {
      const { store, open } = gatedStore()
      const cache = createCache({ store, namespace: 'client' })
      const log: Exchange[] = []
      const pending = fetchCachedWithInfo(url('post'), { cache, fetch: recordingFetch(log), ...options })
      await tick(50)
      expect(log).toHaveLength(0)
      open()
      expect((await pending).value).toBe('v')
      expect(log).toHaveLength(1)
      // A scope's entry leaves no hint behind.
      if ('scope' in options) expect(storage.getItem(HINTS_ITEM)).toBe(before)
    }
  })

  it('revalidates a kept copy it has no hint of (stored before hints, or its hint evicted): never a full answer for want of one', async () => {
    const { server, url } = await origin()
    await server.set('a', 1)
    await server.set('b', 2)
    const storage = new MapStorage()
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    await fetchCachedWithInfo(url('a'), { cache, validatorHints: storage })
    const kept = await fetchCachedWithInfo(url('b'), { cache, validatorHints: false })
    const log: Exchange[] = []
    expect(await fetchCachedWithInfo(url('b'), { cache, fetch: recordingFetch(log), validatorHints: storage })).toMatchObject({ value: 2, source: 'revalidated' })
    expect(log).toStrictEqual([{ validator: kept.etag, status: 304 }])
  })

  it('never takes a 304 to a hint for the stored copy: a copy that is gone, or older, is fetched again', async () => {
    const { server, url } = await origin()
    const storage = new MapStorage()
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    const log: Exchange[] = []
    const options = { cache, fetch: recordingFetch(log), validatorHints: storage }
    await server.set('post', { n: 1 })
    const one = await fetchCachedWithInfo(url('post'), options)

    // The copy is gone (cleared by another tab, say) but the hint stayed: the 304 says nothing.
    await cache.delete(url('post'))
    const again = await fetchCachedWithInfo(url('post'), options)
    expect(again).toMatchObject({ value: { n: 1 }, source: 'network', kept: true })
    expect(log.slice(1)).toStrictEqual([
      { validator: one.etag, status: 304 },
      { validator: null, status: 200 },
    ])

    // The server's value changes, and the hint names the new ETag while the stored copy is the old
    // one: asked again with the copy's ETag (the server's, kept in its header), the server sends the new value, never the old copy.
    await server.set('post', { n: 2 })
    const other = createCache({ store: createMemoryStore(), namespace: 'elsewhere' })
    const current = await fetchCachedWithInfo(url('post'), { cache: other, validatorHints: false })
    new ValidatorHints(storage).remember('client', url('post'), { kind: 'etag', value: current.etag! })
    log.length = 0
    const fresh = await fetchCachedWithInfo(url('post'), options)
    expect(fresh).toMatchObject({ value: { n: 2 }, source: 'network' })
    expect(log).toStrictEqual([
      { validator: current.etag, status: 304 },
      { validator: one.etag, status: 200 },
    ])
    expect(new ValidatorHints(storage).guess('client', url('post'))).toStrictEqual({ validator: { kind: 'etag', value: fresh.etag } })
  })

  it('sends neither a damaged hint nor the app\'s own If-None-Match: the server\'s current value, never the old copy', async () => {
    const { server, url } = await origin()
    const storage = new MapStorage()
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    await server.set('post', { n: 1 })
    const one = await fetchCachedWithInfo(url('post'), { cache, validatorHints: storage })
    await server.set('post', { n: 2 })
    storage.setItem(HINTS_ITEM, JSON.stringify({ '\u0001client': 1, [`client\u0000${url('post')}`]: 'e"x"\r\nX-Evil: 1' }))
    const log: Exchange[] = []
    const got = await fetchCachedWithInfo(url('post'), { cache, fetch: recordingFetch(log), validatorHints: storage })
    expect([got.source, got.value]).toStrictEqual(['network', { n: 2 }])
    expect(log).toStrictEqual([{ validator: one.etag, status: 200 }])

    // Another cache holds {n: 1}; the app asks with {n: 2}'s ETag itself: replaced by the copy's.
    const older = createCache({ store: createMemoryStore(), namespace: 'older' })
    await server.set('post', { n: 1 })
    const oldOne = await fetchCachedWithInfo(url('post'), { cache: older, validatorHints: false })
    await server.set('post', { n: 2 })
    log.length = 0
    const mine = await fetchCachedWithInfo(url('post'), { cache: older, fetch: recordingFetch(log), validatorHints: false, init: { headers: { 'If-None-Match': got.etag! } } })
    expect([mine.source, mine.value]).toStrictEqual(['network', { n: 2 }])
    expect(log).toStrictEqual([{ validator: oldOne.etag, status: 200 }])
    // With no copy at all, the request goes without it: the value, not a 304 that answers nothing.
    log.length = 0
    const none = await fetchCachedWithInfo(url('post'), { cache: createCache({ namespace: 'none' }), fetch: recordingFetch(log), validatorHints: false, init: { headers: { 'If-None-Match': got.etag! } } })
    expect([none.source, none.value]).toStrictEqual(['network', { n: 2 }])
    expect(log).toStrictEqual([{ validator: null, status: 200 }])
  })

  it('abandons the request it sent early when the store fails, keeps nothing, and leaves what it knew', async () => {
    const { url } = await origin()
    const storage = new MapStorage()
    const inner = createMemoryStore()
    const failing: Store = { ...inner, name: 'failing', get: () => tick(30).then(() => Promise.reject(new Error('disk gone'))) }
    const cache = createCache({ store: failing, namespace: 'client', readErrors: 'throw', breaker: false })
    // A server that has not answered yet: the request ends only when it is aborted.
    let aborted: unknown
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) =>
        init!.signal!.addEventListener('abort', () => {
          aborted = init!.signal!.reason
          reject(aborted)
        }),
      )
    await expect(fetchCachedWithInfo(url('post'), { cache, fetch: hanging, validatorHints: storage })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR, message: expect.stringContaining('disk gone') })
    expect(aborted).toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    const kept: string[] = []
    for await (const key of inner.keys!('')) kept.push(key)
    expect(kept).toStrictEqual([])
    expect(storage.items.size).toBe(0)
  })

  it('a sign-out while the store is still opening keeps the answer out, and no hint of the scope comes back', async () => {
    const { server, url } = await origin()
    await server.set('post', 'alice only')
    const storage = new MapStorage()
    const { store, open, inner } = gatedStore()
    const base = createCache({ store, namespace: 'app' })
    const pending = fetchCachedWithInfo(url('post'), { cache: scopedCache(base, 'alice'), validatorHints: storage })
    await tick(50)
    const out = signOut({ cache: base, scope: 'alice', validatorHints: storage })
    open()
    await out
    expect(await pending).toMatchObject({ value: 'alice only', source: 'network', kept: false })
    const kept: string[] = []
    for await (const key of inner.keys!('')) kept.push(key)
    expect(kept).toStrictEqual([])
    expect(storage.getItem(HINTS_ITEM) ?? '').not.toContain('alice')
  })

  it('forgets the hint when no copy is kept: a no-store request, a 404', async () => {
    const { server, url } = await origin()
    const storage = new MapStorage()
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    await server.set('post', 'v')
    await fetchCachedWithInfo(url('post'), { cache, validatorHints: storage })
    expect(new ValidatorHints(storage).guess('client', url('post'))?.validator).toBeDefined()
    await fetchCachedWithInfo(url('post'), { cache, validatorHints: storage, init: { headers: { 'Cache-Control': 'no-store' } } })
    // Its own delete of the older copy came after the call began: nothing known, the next call waits.
    expect(new ValidatorHints(storage).guess('client', url('post'))).toBeUndefined()
    await fetchCachedWithInfo(url('post'), { cache, validatorHints: storage })
    const gone: typeof fetch = async () => new Response('', { status: 404 })
    await expect(fetchCachedWithInfo(url('post'), { cache, validatorHints: storage, fetch: gone })).rejects.toThrow(/404/)
    // A failed call leaves the hint: checked against the store by the next call, which waits for none.
    expect(await cache.getBytes(url('post'))).toBeUndefined()
    const log: Exchange[] = []
    expect(await fetchCachedWithInfo(url('post'), { cache, fetch: recordingFetch(log), validatorHints: storage })).toMatchObject({ value: 'v', source: 'network' })
    expect(log.map((e) => e.status)).toStrictEqual([304, 200])
  })

  it('signOut forgets what it knew of the cache it wipes, a scope passed as a scoped cache too, and nothing of other namespaces', async () => {
    const storage = new MapStorage()
    const hints = new ValidatorHints(storage)
    const etag = { kind: 'etag', value: '"a"' } as const
    hints.remember('app', '/a', etag)
    hints.remember('app:child', '/b', etag)
    hints.remember('apple', '/c', etag)
    hints.remember('app:scope:user-1', '/d', etag)
    const app = createCache({ namespace: 'app' })
    expect(scopedCache(app, 'user-1').namespace).toBe('app:scope:user-1')
    await signOut({ cache: app, scope: 'user-1', validatorHints: storage })
    const now = () => new ValidatorHints(storage)
    expect(now().guess('app', '/a')).toStrictEqual({ validator: etag })
    expect(now().guess('app:scope:user-1', '/d')).toStrictEqual({ validator: undefined })
    await signOut({ cache: app, validatorHints: storage })
    expect([now().guess('app', '/a'), now().guess('app:child', '/b'), now().guess('apple', '/c')]).toStrictEqual([{ validator: undefined }, { validator: undefined }, { validator: etag }])
    expect(Object.keys(JSON.parse(storage.getItem(HINTS_ITEM)!))).toStrictEqual(['apple\u0000/c', '\u0001apple'])
  })
})

describe('ValidatorHints', () => {
  it('keeps the last MAX_HINTS within MAX_HINTS_LENGTH, a __proto__ key as its own, Last-Modified validators, and none for long keys', () => {
    const storage = new MapStorage()
    const hints = new ValidatorHints(storage)
    for (let i = 0; i < MAX_HINTS + 10; i++) hints.remember('ns', `/k${i}`, { kind: 'etag', value: `"${i}"` })
    expect(Object.keys(JSON.parse(storage.getItem(HINTS_ITEM)!))).toHaveLength(MAX_HINTS + 1)
    expect(new ValidatorHints(storage).guess('ns', '/k0')).toBeUndefined()
    expect(new ValidatorHints(storage).guess('ns', `/k${MAX_HINTS + 9}`)).toStrictEqual({ validator: { kind: 'etag', value: `"${MAX_HINTS + 9}"` } })
    hints.remember('__proto__', '', { kind: 'last-modified', value: 'Wed, 21 Oct 2015 07:28:00 GMT' })
    hints.remember('ns', '__proto__', { kind: 'etag', value: '"p"' })
    const again = new ValidatorHints(storage)
    expect(again.guess('__proto__', '')).toStrictEqual({ validator: { kind: 'last-modified', value: 'Wed, 21 Oct 2015 07:28:00 GMT' } })
    expect(again.guess('ns', '__proto__')).toStrictEqual({ validator: { kind: 'etag', value: '"p"' } })
    expect(({} as Record<string, unknown>).e).toBeUndefined()
    // Long keys: no hint, nothing known (the call waits for its store).
    for (let i = 0; i < 100; i++) hints.remember('ns', `/${'x'.repeat(1000)}${i}`, { kind: 'etag', value: `"${'y'.repeat(200)}"` })
    expect(storage.getItem(HINTS_ITEM)!.length).toBeLessThanOrEqual(MAX_HINTS_LENGTH)
    expect(new ValidatorHints(storage).guess('ns', `/${'x'.repeat(1000)}99`)).toStrictEqual({ validator: { kind: 'etag', value: `"${'y'.repeat(200)}"` } })
    hints.remember('ns', `/${'x'.repeat(3000)}`, { kind: 'etag', value: '"z"' })
    expect(new ValidatorHints(storage).guess('ns', `/${'x'.repeat(3000)}`)).toBeUndefined()
  })

  it('reads damaged or foreign items as nothing known, and a storage that throws as none', () => {
    const storage = new MapStorage()
    for (const text of ['not json', '[1,2]', 'null', '{"\\u0001ns":1,"ns\\u0000/a":7}', '{"\\u0001ns":1,"ns\\u0000/a":"x\\"a\\""}', '{"\\u0001ns":1,"ns\\u0000/a":"e\\u00e9"}']) {
      storage.setItem(HINTS_ITEM, text)
      const guess = new ValidatorHints(storage).guess('ns', '/a')
      // A damaged item is no hints at all: a namespace never seen, asked without a validator.
      expect(guess === undefined || guess.validator === undefined).toBe(true)
    }
    const blocked = new ValidatorHints({
      getItem: () => {
        throw new DOMException('blocked', 'SecurityError')
      },
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError')
      },
    })
    expect(blocked.guess('ns', '/a')).toStrictEqual({ validator: undefined })
    expect(() => blocked.remember('ns', '/a', { kind: 'etag', value: '"a"' })).not.toThrow()
  })
})
