import { createCache, createMemoryStore, type Cache, type Store } from '@stowage/core'
import { afterEach, describe, expect, it } from 'vitest'
import { fetchCachedWithInfo, HINTS_ITEM, MAX_HINTS, signOut, type HintStorage } from '../src/index.js'
import { ValidatorHints } from '../src/validator-hints.js'
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

// A store whose reads wait until `open()`: a database still opening.
function gatedStore(): { store: Store; open: () => void } {
  const inner = createMemoryStore()
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const store: Store = { ...inner, name: 'gated', get: async (key) => (await gate, inner.get(key)), set: (k, v, o) => inner.set(k, v, o), delete: (k) => inner.delete(k), keys: inner.keys?.bind(inner), clear: inner.clear?.bind(inner) }
  return { store, open }
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('fetchCached with validator hints', () => {
  it('sends the request before the store has answered, and the next one with the kept copy\'s ETag', async () => {
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
    expect(JSON.parse(storage.getItem(HINTS_ITEM)!)).toStrictEqual({ [`client\u0000${url('post')}`]: `e${got.etag}` })
    const second = await fetchCachedWithInfo(url('post'), { cache, fetch: recordingFetch(log), validatorHints: storage })
    expect(second).toMatchObject({ value: { title: 'Hello' }, source: 'revalidated' })
    expect(log).toStrictEqual([
      { validator: null, status: 200 },
      { validator: got.etag, status: 304 },
    ])
  })

  it('waits for the store without hints (validatorHints: false) and with a scope', async () => {
    const { server, url } = await origin()
    await server.set('post', 'v')
    const storage = new MapStorage()
    for (const options of [{ validatorHints: false as const }, { validatorHints: storage, scope: 'user-1' }]) {
      const { store, open } = gatedStore()
      const cache = createCache({ store, namespace: 'client' })
      const log: Exchange[] = []
      const pending = fetchCachedWithInfo(url('post'), { cache, fetch: recordingFetch(log), ...options })
      await tick(50)
      expect(log).toHaveLength(0)
      open()
      expect((await pending).value).toBe('v')
      expect(log).toHaveLength(1)
    }
    // A scope's entry leaves no hint behind.
    expect(storage.items.size).toBe(0)
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
    // one: asked again with the copy's own ETag, the server sends the new value, never the old copy.
    await server.set('post', { n: 2 })
    const other = createCache({ store: createMemoryStore(), namespace: 'elsewhere' })
    const current = await fetchCachedWithInfo(url('post'), { cache: other, validatorHints: false })
    new ValidatorHints(storage).remember('client', url('post'), { kind: 'etag', value: current.etag })
    log.length = 0
    const fresh = await fetchCachedWithInfo(url('post'), options)
    expect(fresh).toMatchObject({ value: { n: 2 }, source: 'network' })
    expect(log).toStrictEqual([
      { validator: current.etag, status: 304 },
      { validator: one.etag, status: 200 },
    ])
    expect(new ValidatorHints(storage).read('client', url('post'))).toStrictEqual({ kind: 'etag', value: fresh.etag })
  })

  it('forgets the hint when no copy is kept: a no-store request, a 404', async () => {
    const { server, url } = await origin()
    const storage = new MapStorage()
    const cache = createCache({ store: createMemoryStore(), namespace: 'client' })
    await server.set('post', 'v')
    await fetchCachedWithInfo(url('post'), { cache, validatorHints: storage })
    expect(new ValidatorHints(storage).read('client', url('post'))).toBeDefined()
    await fetchCachedWithInfo(url('post'), { cache, validatorHints: storage, init: { headers: { 'Cache-Control': 'no-store' } } })
    expect(new ValidatorHints(storage).read('client', url('post'))).toBeUndefined()
    await fetchCachedWithInfo(url('post'), { cache, validatorHints: storage })
    const gone: typeof fetch = async () => new Response('', { status: 404 })
    await expect(fetchCachedWithInfo(url('post'), { cache, validatorHints: storage, fetch: gone })).rejects.toThrow(/404/)
    expect(new ValidatorHints(storage).read('client', url('post'))).toBeUndefined()
  })

  it('signOut forgets the hints of the cache it wipes, not of other namespaces, and none for a scope', async () => {
    const storage = new MapStorage()
    const hints = new ValidatorHints(storage)
    const etag = { kind: 'etag', value: '"a"' } as const
    hints.remember('app', '/a', etag)
    hints.remember('app:child', '/b', etag)
    hints.remember('apple', '/c', etag)
    await signOut({ cache: createCache({ namespace: 'app' }), scope: 'user-1', validatorHints: storage })
    expect(hints.read('app', '/a')).toStrictEqual(etag)
    await signOut({ cache: createCache({ namespace: 'app' }), validatorHints: storage })
    expect([hints.read('app', '/a'), hints.read('app:child', '/b'), hints.read('apple', '/c')]).toStrictEqual([undefined, undefined, etag])
  })
})

describe('ValidatorHints', () => {
  it('keeps the last MAX_HINTS, a __proto__ key as its own, and Last-Modified validators', () => {
    const storage = new MapStorage()
    const hints = new ValidatorHints(storage)
    for (let i = 0; i < MAX_HINTS + 10; i++) hints.remember('ns', `/k${i}`, { kind: 'etag', value: `"${i}"` })
    expect(Object.keys(JSON.parse(storage.getItem(HINTS_ITEM)!))).toHaveLength(MAX_HINTS)
    expect(hints.read('ns', '/k0')).toBeUndefined()
    expect(hints.read('ns', `/k${MAX_HINTS + 9}`)).toStrictEqual({ kind: 'etag', value: `"${MAX_HINTS + 9}"` })
    hints.remember('__proto__', '', { kind: 'last-modified', value: 'Wed, 21 Oct 2015 07:28:00 GMT' })
    hints.remember('ns', '__proto__', { kind: 'etag', value: '"p"' })
    expect(hints.read('__proto__', '')).toStrictEqual({ kind: 'last-modified', value: 'Wed, 21 Oct 2015 07:28:00 GMT' })
    expect(hints.read('ns', '__proto__')).toStrictEqual({ kind: 'etag', value: '"p"' })
    expect(({} as Record<string, unknown>).e).toBeUndefined()
  })

  it('reads damaged or foreign items as no hints, and a storage that throws as none', () => {
    const storage = new MapStorage()
    const hints = new ValidatorHints(storage)
    for (const text of ['not json', '[1,2]', 'null', '{"ns\\u0000/a":7}', '{"ns\\u0000/a":"x\\"a\\""}']) {
      storage.setItem(HINTS_ITEM, text)
      expect(hints.read('ns', '/a')).toBeUndefined()
    }
    const blocked = new ValidatorHints({
      getItem: () => {
        throw new DOMException('blocked', 'SecurityError')
      },
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError')
      },
    })
    expect(blocked.read('ns', '/a')).toBeUndefined()
    expect(() => blocked.remember('ns', '/a', { kind: 'etag', value: '"a"' })).not.toThrow()
  })
})
