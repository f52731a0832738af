import { StowageError, StowageErrorCode, createCodec, createMemoryStore, type Store } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { persist } from 'zustand/middleware'
import { createStore } from 'zustand/vanilla'
import { createStowageStorage, PERSIST_CODEC_OPTIONS } from '../src/zustand/index.js'
import { dbName, landed, sleep, withMethod } from './helpers.js'

interface Cart {
  items: Map<string, number>
  seen: Set<string>
  updatedAt: Date
  total: bigint
  add(sku: string): void
}

function cartStore(name: string, options: { version?: number; migrate?: (s: unknown, v: number) => Cart } = {}) {
  return createStore<Cart>()(
    persist(
      (set) => ({
        items: new Map(),
        seen: new Set(),
        updatedAt: new Date(0),
        total: 0n,
        add: (sku) =>
          set((s) => ({ items: new Map(s.items).set(sku, (s.items.get(sku) ?? 0) + 1), seen: new Set(s.seen).add(sku), updatedAt: new Date(1_700_000_000_000), total: s.total + 9_007_199_254_740_993n })),
      }),
      { name: 'cart', storage: createStowageStorage({ dbName: name }), ...options },
    ),
  )
}

const hydrated = (store: ReturnType<typeof cartStore>) => new Promise<void>((resolve) => (store.persist.hasHydrated() ? resolve() : store.persist.onFinishHydration(() => resolve())))
const zcodec = createCodec(PERSIST_CODEC_OPTIONS)

describe('zustand storage', () => {
  it('restores Map, Set, Date and BigInt state in a new store', async () => {
    const name = dbName()
    const first = cartStore(name)
    await hydrated(first)
    first.getState().add('apple')
    first.getState().add('apple')
    first.getState().add('pear')
    await sleep(20)
    const second = cartStore(name)
    await hydrated(second)
    const s = second.getState()
    expect(s.items).toStrictEqual(new Map([['apple', 2], ['pear', 1]]))
    expect(s.seen).toStrictEqual(new Set(['apple', 'pear']))
    expect(s.updatedAt).toStrictEqual(new Date(1_700_000_000_000))
    expect(s.total).toBe(3n * 9_007_199_254_740_993n)
    expect(typeof s.add).toBe('function')
  })

  it('hands an older version to migrate', async () => {
    const name = dbName()
    const v0 = cartStore(name)
    await hydrated(v0)
    v0.getState().add('kiwi')
    await sleep(20)
    const seen: number[] = []
    const v1 = cartStore(name, {
      version: 1,
      migrate: (state, version) => {
        seen.push(version)
        return { ...(state as Cart), total: 1n }
      },
    })
    await hydrated(v1)
    expect(seen).toStrictEqual([0])
    expect(v1.getState().total).toBe(1n)
    expect(v1.getState().items.get('kiwi')).toBe(1)
  })

  it('leaves out top-level actions, as JSON would', async () => {
    const storage = createStowageStorage<{ n: number; inc?: () => void }>({ store: createMemoryStore() })
    await storage.setItem('s', { state: { n: 1, inc: () => {} }, version: 0 })
    expect(await storage.getItem('s')).toStrictEqual({ state: { n: 1 }, version: 0 })
  })

  it('rejects a nested function with UNSUPPORTED_TYPE', async () => {
    const storage = createStowageStorage<unknown>({ store: createMemoryStore() })
    await expect(storage.setItem('s', { state: { nested: { f: () => {} } } })).rejects.toSatisfy((e) => StowageError.isInstance(e) && e.code === StowageErrorCode.UNSUPPORTED_TYPE)
  })

  it('rejects damaged bytes with a decoder code, and removeItem forgets the state', async () => {
    const store = createMemoryStore()
    const storage = createStowageStorage<{ n: number }>({ store, prefix: 'app:' })
    await storage.setItem('s', { state: { n: 1 }, version: 3 })
    expect(await storage.getItem('s')).toStrictEqual({ state: { n: 1 }, version: 3 })
    const bytes = (await store.get('app:s'))!
    bytes[bytes.length - 1]! ^= 0xff
    await store.set('app:s', bytes)
    await expect(storage.getItem('s')).rejects.toSatisfy((e) => StowageError.isInstance(e) && e.code === StowageErrorCode.CHECKSUM_MISMATCH)
    await storage.removeItem('s')
    expect(await storage.getItem('s')).toBeNull()
  })
})

describe("zustand storage: another page's clearStorage (a sign-out)", () => {
  it('the other open pages stop writing the name, and what they write after it never stays', async () => {
    const name = dbName()
    const page1 = cartStore(name)
    const page2 = cartStore(name)
    await Promise.all([hydrated(page1), hydrated(page2)])
    page2.getState().add('apple') // page 2 holds A's cart
    await sleep(50)
    await page1.persist.clearStorage() // page 1 signs A out: the other pages are told at once
    await sleep(20)
    page2.getState().add('pear') // page 2 still runs A's session
    await sleep(50)
    const reloaded = cartStore(name)
    await hydrated(reloaded)
    expect(reloaded.getState().items.size).toBe(0) // the next user finds nothing of A's
  })

  it("a write of the other page that lands after page 1's delete, before the notice is heard, is deleted", async () => {
    const name = dbName()
    const store = createMemoryStore()
    const storage = createStowageStorage<{ owner: string }>({ store, dbName: name })
    const other = createStowageStorage<{ owner: string }>({ store, dbName: name })
    await storage.getItem('cart') // page 2 opened its name
    await other.removeItem('cart') // page 1's removal: its notice is on its way
    await storage.setItem('cart', { state: { owner: 'A' }, version: 0 }) // page 2's write lands first
    await sleep(50)
    expect(await store.get('zustand:cart')).toBeUndefined()
    expect(await storage.getItem('cart')).toBeNull() // and page 2 reads nothing more under the name
  })

  it('the page that cleared its own storage writes on (the next user), and other names are not touched', async () => {
    const name = dbName()
    const store = createMemoryStore()
    const page1 = createStowageStorage<{ owner: string }>({ store, dbName: name })
    const page2 = createStowageStorage<{ owner: string }>({ store, dbName: name })
    await page2.getItem('cart')
    await page2.setItem('settings', { state: { owner: 'A' }, version: 0 })
    await page1.removeItem('cart')
    await page1.setItem('cart', { state: { owner: 'B' }, version: 0 })
    await sleep(50)
    expect(await page1.getItem('cart')).toMatchObject({ state: { owner: 'B' } })
    expect(await page2.getItem('settings')).toMatchObject({ state: { owner: 'A' } })
  })
})

describe('zustand storage: a sign-out and what is under way or made later', () => {
  interface Prefs {
    owner: string
    note: string
  }
  const prefsStore = (store: Store, db: string, skipHydration = false) =>
    createStore<Prefs>()(persist(() => ({ owner: 'nobody', note: '' }), { name: 'prefs', storage: createStowageStorage({ store, dbName: db }), skipHydration }))

  it("this page's clearStorage() while its own write is under way on a store that lands writes late: that write goes", async () => {
    const inner = createMemoryStore()
    const slowSets = withMethod(inner, 'set', async (k, v, o) => {
      await sleep(30)
      return inner.set(k, v, o)
    })
    const storage = createStowageStorage<{ owner: string }>({ store: slowSets, dbName: dbName() })
    const writing = storage.setItem('prefs', { state: { owner: 'A' }, version: 0 })
    await storage.removeItem('prefs')
    await writing
    expect(await inner.get('zustand:prefs')).toBeUndefined()
  })

  it("a page whose store has not used the name yet (skipHydration) when another page signs out: it is handed nothing and writes nothing", async () => {
    const inner = createMemoryStore()
    const db = dbName()
    const page1 = prefsStore(inner, db)
    await page1.persist.rehydrate()
    const page2 = prefsStore(inner, db, true)
    page1.setState({ owner: 'A', note: 'A-secret' })
    await sleep(20)
    await page1.persist.clearStorage()
    // clearStorage() returns nothing to wait for: wait until the removal has left its record (a fixed 20 ms failed once in a busy Firefox).
    await landed(inner, 'stowage-persist-zustand-removed:zustand:prefs')
    page1.setState({ owner: 'B', note: 'B-secret' }) // the next user, in the page that signed out
    await sleep(20)
    await page2.persist.rehydrate() // page 2 still runs A's session
    expect(page2.getState().note).toBe('')
    page2.setState({ owner: 'A', note: 'A-secret-2' })
    await sleep(20)
    const reloaded = prefsStore(inner, db)
    await reloaded.persist.rehydrate()
    expect(reloaded.getState().owner).toBe('B')
  })

  it("a storage made after another page's removal, in a page loaded before it, finds the removal record and stops", async () => {
    const inner = createMemoryStore()
    const codec = createCodec(PERSIST_CODEC_OPTIONS)
    await inner.set('zustand:prefs', codec.encode({ state: { owner: 'B' }, version: 0 }))
    await inner.set('stowage-persist-zustand-removed:zustand:prefs', codec.encode({ id: 'another-page', at: Date.now() }))
    const late = createStowageStorage<{ owner: string }>({ store: inner, dbName: dbName() })
    expect(await late.getItem('prefs')).toBeNull()
    await late.setItem('prefs', { state: { owner: 'A' }, version: 0 })
    expect(codec.decode(await inner.get('zustand:prefs') as Uint8Array)).toMatchObject({ state: { owner: 'B' } })
    // A record older than this page (a removal before it was loaded) stops nothing.
    await inner.set('stowage-persist-zustand-removed:zustand:cart', codec.encode({ id: 'another-page', at: performance.timeOrigin - 1000 }))
    await late.setItem('cart', { state: { owner: 'B' }, version: 0 })
    expect(await late.getItem('cart')).toMatchObject({ state: { owner: 'B' } })
  })

  it('a failed read of the removal record: that use reads and writes nothing, and the next use reads the record again', async () => {
    const inner = createMemoryStore()
    await inner.set('zustand:prefs', zcodec.encode({ state: { owner: 'B' }, version: 0 })) // B's state, after A's sign-out elsewhere
    await inner.set('stowage-persist-zustand-removed:zustand:prefs', zcodec.encode({ id: 'another-page', at: Date.now() }))
    let failOnce = true
    const flaky = withMethod(inner, 'get', async (k) => {
      if (failOnce && k.startsWith('stowage-persist-zustand-removed:')) {
        failOnce = false
        throw new Error('transient IndexedDB error')
      }
      return inner.get(k)
    })
    const late = createStowageStorage<{ owner: string }>({ store: flaky, dbName: dbName() }) // a page loaded before the removal
    await Promise.resolve(late.getItem('prefs')).catch(() => null) // the first use: the record read fails
    expect(await late.getItem('prefs')).toBeNull()
    await late.setItem('prefs', { state: { owner: 'A' }, version: 0 })
    expect(zcodec.decode(await inner.get('zustand:prefs') as Uint8Array)).toMatchObject({ state: { owner: 'B' } })
  })

  it("a page stopped by another page's sign-out that then clears its own storage (its own sign-out) writes on", async () => {
    const inner = createMemoryStore()
    const db = dbName()
    const page1 = createStowageStorage<{ owner: string }>({ store: inner, dbName: db })
    const page2 = createStowageStorage<{ owner: string }>({ store: inner, dbName: db })
    await page2.getItem('prefs')
    await page1.removeItem('prefs') // A signs out in page 1
    await sleep(20) // page 2 stopped
    await page2.removeItem('prefs') // page 2 runs its own sign-out (clears its in-memory state), B signs in there
    await page2.setItem('prefs', { state: { owner: 'B' }, version: 0 })
    expect(await inner.get('zustand:prefs')).toBeDefined()
  })
})
