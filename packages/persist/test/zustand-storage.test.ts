import { StowageError, StowageErrorCode, createMemoryStore } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { persist } from 'zustand/middleware'
import { createStore } from 'zustand/vanilla'
import { createStowageStorage } from '../src/zustand/index.js'
import { dbName } from './helpers.js'

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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

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
