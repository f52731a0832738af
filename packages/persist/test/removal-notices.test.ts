// Removal notices (a sign-out told to the other pages at once) that reach a page before its first
// look at the removal record has landed: a restore running, a client handed over. A review found
// that such a notice was taken as the removal the page first saw, so the page never stopped (with
// no record stored before). And a persistManualUpdates batch under way when one is heard.
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '@stowage/core'
import { createQueryStorage, createStowageClientPersister, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, deferred, keysOf, sleep, unique, withMethod } from './helpers.js'

const client = () => new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
const uniqueKey = () => `client-${Math.random().toString(36).slice(2)}`

async function ownersIn(name: string, key: string): Promise<string[]> {
  const qc = client()
  await persistQueryClientRestore({ queryClient: qc, persister: createStowageClientPersister({ store: createIdbStore({ dbName: name }), key }) })
  return qc.getQueryCache().getAll().map((q) => (q.state.data as { owner: string }).owner)
}

describe('a notice heard before the first look', () => {
  it("a page restoring A's client while another page signs A out (the first sign-out: no record yet) hands nothing over, then saves on", async () => {
    const name = dbName()
    const key = uniqueKey()
    const inner = createIdbStore({ dbName: name })
    const qc0 = client()
    qc0.setQueryData(['account', 1], { owner: 'A', i: 1 })
    await persistQueryClientSave({ queryClient: qc0, persister: createStowageClientPersister({ store: inner, key, throttleTime: 0 }) })

    // Page 2 loads and restores; its segments are read, then it is still busy (decoding) when page 1 signs out.
    const read = deferred()
    const gate = deferred()
    const slow = withMethod(inner, 'getMany', async (keys) => {
      const values = await inner.getMany(keys)
      if (keys.some((k) => k.includes(':s:'))) {
        read.resolve()
        await gate.promise
      }
      return values
    })
    const errors: Array<{ code: string }> = []
    const page2 = createStowageClientPersister({ store: slow, key, throttleTime: 0, onError: (e) => errors.push(e) })
    const qc2 = client()
    const restoring = persistQueryClientRestore({ queryClient: qc2, persister: page2 })
    await read.promise
    await createStowageClientPersister({ store: createIdbStore({ dbName: name }), key }).removeClient() // page 1 signs A out
    await sleep(20) // the notice reaches page 2 during its restore
    gate.resolve()
    await restoring
    // The restore hands nothing over: what it read is A's, whom page 1 signed out meanwhile (at
    // dc7cc4d page 2 showed and then saved A's queries, and the next user restored them).
    expect(qc2.getQueryCache().getAll()).toHaveLength(0)
    // Holding nothing of A, page 2 saves on: the next user's queries.
    qc2.setQueryData(['account', 2], { owner: 'B', i: 2 })
    await persistQueryClientSave({ queryClient: qc2, persister: page2 })
    expect(await ownersIn(name, key)).toStrictEqual(['B'])
    expect(errors).toStrictEqual([])
  })

  it("a page handed A's client (its first) while another page signs A out stops saving", async () => {
    const name = dbName()
    const key = uniqueKey()
    const inner = createIdbStore({ dbName: name })
    // Page 2's first look at the removal record is read, then lands late (a busy IndexedDB).
    const look = deferred()
    const gate = deferred()
    let first = true
    const slow = withMethod(inner, 'get', async (k) => {
      const value = await inner.get(k)
      if (first && k.endsWith(':removed')) {
        first = false
        look.resolve()
        await gate.promise
      }
      return value
    })
    const errors: Array<{ code: string }> = []
    const page2 = createStowageClientPersister({ store: slow, key, throttleTime: 0, onError: (e) => errors.push(e) })
    const qc2 = client()
    qc2.setQueryData(['account', 1], { owner: 'A', i: 1 }) // fetched for A before the sign-out
    const saving = persistQueryClientSave({ queryClient: qc2, persister: page2 })
    await look.promise
    await createStowageClientPersister({ store: createIdbStore({ dbName: name }), key }).removeClient() // page 1 signs A out
    await sleep(20)
    gate.resolve()
    await saving
    expect(await ownersIn(name, key)).toStrictEqual([]) // a page that did not stop: ['A']
    expect(errors.map((e) => e.code)).toStrictEqual(['STORE_ERROR'])
  })
})

describe("the per-query persister against another page's removal: a persistManualUpdates batch under way", () => {
  it('a setQueryData batch that was under way when another page signed out does not outlive the removal', async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const prefix = unique('q')
    const [underWay, gate, landed] = [deferred(), deferred(), deferred()]
    // Page 2's batch is under way (the store opening its database, or retrying after a quota error) when page 1 signs out.
    const slowBatches = withMethod(inner, 'setMany', async (entries) => {
      underWay.resolve()
      await gate.promise
      await inner.setMany(entries)
      landed.resolve()
    })
    const page2 = createStowageQueryPersister({ store: slowBatches, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    page2.persistManualUpdates(qc)
    qc.setQueryData(['inbox'], { owner: 'A', mail: 'secret' })
    await underWay.promise
    await createStowageQueryPersister({ store: inner, prefix }).removeClient() // page 1 signs A out
    await sleep(20)
    gate.resolve()
    await landed.promise
    await sleep(50)
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([]) // A's inbox would stay
  })
})

describe("the per-query persister: another tab's notice that arrives after the write it should undo", () => {
  it("deletes a write of this page that landed after the other tab's delete, before this page heard its notice (a message has no order against IndexedDB's events)", async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const prefix = unique('q')
    const underWay = deferred()
    const gate = deferred()
    const landed = deferred()
    // Page 2's write is under way (its store still opening the database) when page 1 signs A out.
    const slow = withMethod(inner, 'set', async (k, v, o) => {
      underWay.resolve()
      await gate.promise
      await inner.set(k, v, o)
      landed.resolve()
    })
    const page2 = createStowageQueryPersister({ store: slow, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    await underWay.promise
    // Page 1 (another tab): removeClient posts its notice, then deletes the prefix's entries.
    const tab1 = new BroadcastChannel(`stowage-persist-queries:${prefix}`)
    const at = Date.now()
    await createQueryStorage({ store: inner, prefix }).removeAll()
    // Page 2's put, created after that delete, lands; its success task runs before the notice's
    // message task (a BroadcastChannel message has no order against IndexedDB's events: other
    // task source, and another IPC route in a multi-process browser).
    gate.resolve()
    await landed.promise
    await sleep(10)
    tab1.postMessage({ removal: '1', at }) // the notice, posted before the delete, reaches page 2 now
    await sleep(50)
    tab1.close()
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })
})

describe('where there are no tabs (a server: no IndexedDB)', () => {
  it("persisters tell and hear nothing: user A's sign-out in one request leaves user B's write in another (over another store) alone", async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB')!
    delete (globalThis as { indexedDB?: unknown }).indexedDB
    try {
      const storeA = createMemoryStore()
      const innerB = createMemoryStore()
      const gate = deferred()
      const landed = deferred()
      const storeB = withMethod(innerB, 'set', async (k, v, o) => {
        await gate.promise
        await innerB.set(k, v, o)
        landed.resolve()
      })
      const prefix = unique('server') // the app's one prefix
      const forB = createStowageQueryPersister({ store: storeB, prefix })
      const qcB = new QueryClient({ defaultOptions: { queries: { persister: forB.persisterFn, gcTime: Infinity } } })
      await qcB.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'B' }) })
      await sleep(10) // B's write is under way
      await createStowageQueryPersister({ store: storeA, prefix }).removeClient() // A signs out
      gate.resolve()
      await landed.promise
      await sleep(50)
      expect(await keysOf(innerB, `${prefix}-`)).toStrictEqual([`${prefix}-["me"]`])
    } finally {
      Object.defineProperty(globalThis, 'indexedDB', saved)
    }
  })
})

describe("restoreQueries straddling another page's sign-out, with persistManualUpdates", () => {
  it("the entries read before page 1's delete are set after its notice and written back: nothing of A's stays", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const page1 = createStowageQueryPersister({ store: inner, prefix })
    const qc1 = new QueryClient({ defaultOptions: { queries: { persister: page1.persisterFn, gcTime: Infinity } } })
    await qc1.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    await sleep(50)
    expect(await keysOf(inner, `${prefix}-`)).toHaveLength(1)
    // Page 2 (just opened) restores: its read of the values is answered after page 1's notice.
    let read!: () => void
    const wasRead = new Promise<void>((r) => (read = r))
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const slowReads = withMethod(inner, 'getMany', async (keys) => {
      const values = await inner.getMany!(keys)
      read()
      await gate
      return values
    })
    const page2 = createStowageQueryPersister({ store: slowReads, prefix })
    const qc2 = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    page2.persistManualUpdates(qc2)
    const restoring = page2.restoreQueries(qc2)
    await wasRead
    await page1.removeClient() // page 1 signs A out: notice to page 2, then the delete
    release()
    await restoring
    await sleep(100)
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })
})

describe("a setQueryData in another page while a sign-out runs", () => {
  it("a setQueryData of page 2 after page 1's notice, before page 1's delete ends, is not written", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    let listed!: () => void
    const afterListing = new Promise<void>((r) => (listed = r))
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const heldListing = withMethod(inner, 'getMany', async (keys) => {
      listed() // page 1's removal listed the keys it deletes
      await gate
      return inner.getMany!(keys)
    })
    const page1 = createStowageQueryPersister({ store: heldListing, prefix })
    const page2 = createStowageQueryPersister({ store: inner, prefix })
    const qc2 = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    page2.persistManualUpdates(qc2)
    const removing = page1.removeClient() // notice sent; page 1 lists, its delete is held
    await afterListing
    await sleep(20) // page 2 has heard the notice
    qc2.setQueryData(['late'], { owner: 'A' }) // a mutation's onSuccess for A settles in page 2 now
    await sleep(50) // page 2 writes it
    release()
    await removing
    await sleep(50)
    // In page 1 itself this setQueryData would be dropped (query-sign-out.test.ts, 'drops a setQueryData that persistManualUpdates notes while it runs').
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })
})
