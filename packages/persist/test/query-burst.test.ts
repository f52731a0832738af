// TanStack's per-query persister asks to write each query on its own, a whole burst of fetches at
// once; and on a first screen it asks to restore each query as it is first fetched, all at once.
// Encoded and decoded in slices, written in batches: what each query gets is unchanged, and a
// sign-out that comes while a query waits for its slice still keeps it out of the store.
import { createMemoryStore, type StoreEntry } from '@stowage/core'
import { QueryClient } from '@tanstack/query-core'
import { describe, expect, it, vi } from 'vitest'
import { slicedQueue } from '../src/shared/sliced-queue.js'
import { writeBatches } from '../src/shared/write-batches.js'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { deferred, keysOf, recordingStore, richData, sleep, unique } from './helpers.js'

const setup = (persister: ReturnType<typeof createStowageQueryPersister>) =>
  new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, staleTime: Infinity, gcTime: Infinity } } })
const until = async (done: () => Promise<boolean>) => {
  for (let i = 0; i < 500 && !(await done()); i++) await sleep(10)
}

describe('a burst of queries through the per-query persister', () => {
  it('writes the queries fetched together in batches, and restores each when asked for, all at once', async () => {
    const store = recordingStore()
    const first = createStowageQueryPersister({ store })
    const keys = Array.from({ length: 60 }, (_, i) => ['item', i])
    await Promise.all(keys.map((queryKey, i) => setup(first).fetchQuery({ queryKey, queryFn: async () => richData(i) })))
    await until(async () => (await keysOf(store.inner, 'tanstack-query-')).length === 60)
    expect((await keysOf(store.inner, 'tanstack-query-')).length).toBe(60)
    // Each write asked for on its own; queries encoded in one slice land in one batch.
    expect(store.writes.flat().length).toBe(60)
    expect(Math.max(...store.writes.map((batch) => batch.length))).toBeGreaterThan(1)

    const queryFn = vi.fn(async () => 'fetched again')
    const again = setup(createStowageQueryPersister({ store: store.inner }))
    const restored = await Promise.all(keys.map((queryKey) => again.fetchQuery({ queryKey, queryFn })))
    expect(queryFn).not.toHaveBeenCalled()
    restored.forEach((data, i) => expect(data).toStrictEqual(richData(i)))
  })

  it("a query fetched just before a sign-out, still waiting for its slice when the removal ends, is not written", async () => {
    const store = createMemoryStore()
    const prefix = unique('q')
    const persister = createStowageQueryPersister({ store, prefix })
    await setup(persister).fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A' }) })
    // TanStack's write runs in a task it scheduled: by the end of this one, its encode is queued.
    await sleep(0)
    // A memory store's removal ends before the encode's slice comes.
    await persister.removeClient()
    await sleep(50)
    expect(await keysOf(store, `${prefix}-`)).toStrictEqual([])
  })
})

describe('slicedQueue', () => {
  it('runs the jobs in a later task, in order, each promise with its own result or error', async () => {
    const queue = slicedQueue(8)
    const ran: number[] = []
    const results = [1, 2, 3].map((n) => queue.run(() => (ran.push(n), n * 10)))
    const failed = queue.run(() => {
      throw new Error('bad job')
    })
    expect(ran).toStrictEqual([])
    expect(await Promise.all(results)).toStrictEqual([10, 20, 30])
    await expect(failed).rejects.toThrow('bad job')
    expect(ran).toStrictEqual([1, 2, 3])
  })

  it('lets other tasks run between slices', async () => {
    const queue = slicedQueue(1)
    const order: string[] = []
    const busy = (ms: number) => {
      const end = performance.now() + ms
      while (performance.now() < end);
    }
    // Another task queued while the first job runs (a message, as the queue's own pauses are).
    const other = new MessageChannel()
    other.port1.onmessage = () => order.push('other task')
    const jobs = Array.from({ length: 4 }, (_, i) =>
      queue.run(() => {
        if (i === 0) other.port2.postMessage(null)
        busy(2)
        order.push(`job ${i}`)
      }),
    )
    await Promise.all(jobs)
    await sleep(5)
    other.port1.close()
    expect(order.indexOf('other task')).toBeGreaterThan(0)
    expect(order.indexOf('other task')).toBeLessThan(4)
  })
})

describe('writeBatches', () => {
  it('writes what is asked for in one task in one batch, a key asked twice with its later value', async () => {
    const store = recordingStore()
    const batches = writeBatches(store)
    const bytes = (n: number) => new Uint8Array([n])
    await Promise.all([batches.set({ key: 'a', value: bytes(1) }), batches.set({ key: 'b', value: bytes(2) }), batches.set({ key: 'a', value: bytes(3) })])
    await batches.set({ key: 'c', value: bytes(4) })
    expect(store.writes).toStrictEqual([['a', 'b'], ['c']])
    expect(await store.inner.getMany(['a', 'b', 'c'])).toStrictEqual([bytes(3), bytes(2), bytes(4)])
  })

  it('hands a batch to the store once the one before it has landed, never two that waited together in one task', async () => {
    const inner = createMemoryStore()
    const gate = deferred()
    const begun: string[][] = []
    // A store still opening: its first write waits.
    const store = {
      ...inner,
      setMany: async (entries: readonly StoreEntry[]) => {
        begun.push(entries.map((e) => e.key))
        if (begun.length === 1) await gate.promise
        await inner.setMany(entries)
      },
    }
    const batches = writeBatches(store)
    const first = Promise.all([batches.set({ key: 'a', value: new Uint8Array([1]) }), batches.set({ key: 'b', value: new Uint8Array([1]) })])
    // The first batch has gone to the store (its task is over: a timer of 0 ms may come before it, as in WebKit).
    while (begun.length === 0) await sleep(1)
    const second = Promise.all([batches.set({ key: 'c', value: new Uint8Array([2]) }), batches.set({ key: 'd', value: new Uint8Array([2]) })])
    await sleep(20)
    // The second batch waits for the first, which waits for the store.
    expect(begun).toStrictEqual([['a', 'b']])
    gate.resolve()
    await Promise.all([first, second])
    expect(begun).toStrictEqual([['a', 'b'], ['c', 'd']])
    expect(await inner.getMany(['a', 'b', 'c', 'd'])).toStrictEqual([1, 1, 2, 2].map((n) => new Uint8Array([n])))
  })

  it("rejects every write of a batch the store refused, with the store's error", async () => {
    const store = { ...createMemoryStore(), set: async () => Promise.reject(new Error('quota')), setMany: async () => Promise.reject(new Error('quota')) }
    const batches = writeBatches(store)
    const writes = [batches.set({ key: 'a', value: new Uint8Array(1) }), batches.set({ key: 'b', value: new Uint8Array(1) })]
    for (const write of writes) await expect(write).rejects.toThrow('quota')
  })
})
