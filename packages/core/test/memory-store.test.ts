import { describeStoreContract } from '@stowage/store-contract'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMemoryStore, MEMORY_ENTRY_OVERHEAD, StowageErrorCode, type StowageError } from '../src/index.js'

describeStoreContract({ name: 'memory', createStore: () => createMemoryStore() })

describe('memory store', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('evicts the least recently used entries to stay within maxBytes', async () => {
    const entry = 100 + 2 + MEMORY_ENTRY_OVERHEAD // value + 1-char key as UTF-16 + overhead
    const store = createMemoryStore({ maxBytes: entry * 3 })
    for (const key of ['a', 'b', 'c']) await store.set(key, new Uint8Array(100))
    await store.get('a') // a is now the most recently used
    await store.set('d', new Uint8Array(100))
    expect(await store.get('b')).toBeUndefined()
    for (const key of ['a', 'c', 'd']) expect(await store.get(key)).toBeDefined()
    expect(store.byteSize).toBe(entry * 3)
    await store.close()
  })

  it('refuses an entry bigger than maxBytes, and keeps what it holds', async () => {
    const store = createMemoryStore({ maxBytes: 1000 })
    await store.set('small', new Uint8Array(10))
    await expect(store.set('big', new Uint8Array(2000))).rejects.toMatchObject({ code: StowageErrorCode.LIMIT_EXCEEDED })
    expect(await store.get('small')).toBeDefined()
    await store.close()
  })

  it('sweeps expired entries on its timer, without reads', async () => {
    vi.useFakeTimers()
    const store = createMemoryStore({ sweepInterval: 1000 })
    await store.set('a', new Uint8Array(10), { ttl: 500 })
    await store.set('b', new Uint8Array(10))
    expect(store.size).toBe(2)
    vi.advanceTimersByTime(1001)
    expect(store.size).toBe(1)
    await store.close()
  })

  it('refuses bad options', () => {
    for (const options of [{ maxBytes: 0 }, { maxBytes: 1.5 }, { sweepInterval: -1 }]) {
      expect(() => createMemoryStore(options)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as StowageError)
    }
  })
})
