// removeClient (what signOut calls) against work still in flight: a restore of the same persister,
// a save handed over while it runs, a save waiting for throttleTime, another page's save; and two
// pages saving at once. After a sign-out, a restore finds nothing of the user signed out.
import { createIdbStore } from '@stowage/idb'
import { createCodec, type Store } from '@stowage/core'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it } from 'vitest'
import { createStowageClientPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, sleep, withMethod } from './helpers.js'

const client = () => new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })

/** User A's client, saved in a fresh database. */
async function savedForA(name: string, count = 40): Promise<void> {
  const qc = client()
  for (let i = 0; i < count; i++) qc.setQueryData(['account', i], { owner: 'A', i, text: 'secret of A '.repeat(50) })
  await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0, segmentBytes: 4000 }) })
}

/** The owners of the queries a new page restores from `name`. */
async function restoredOwners(name: string): Promise<string[]> {
  const qc = client()
  await persistQueryClientRestore({ queryClient: qc, persister: createStowageClientPersister({ dbName: name }) })
  return qc
    .getQueryCache()
    .getAll()
    .map((q) => (q.state.data as { owner: string }).owner)
}

/** A store over the database `name` whose `clear` (a removal's delete) waits for `release()`; `cleared` resolves once it is called. */
function slowClear(name: string): { inner: Store; store: Store; cleared: Promise<void>; release: () => void } {
  const inner = createIdbStore({ dbName: name })
  let clearing!: () => void
  const cleared = new Promise<void>((r) => (clearing = r))
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const store = withMethod(inner, 'clear', async (prefix) => {
    clearing()
    await gate
    return inner.clear(prefix)
  })
  return { inner, store, cleared, release }
}

describe('removeClient against work in flight', () => {
  it('a restore that read its segments before removeClient hands nothing over, and the next save lists none of them', async () => {
    const name = dbName()
    await savedForA(name)
    const inner = createIdbStore({ dbName: name })
    let segmentsRead!: () => void
    const read = new Promise<void>((r) => (segmentsRead = r))
    let decoded!: () => void
    const decoding = new Promise<void>((r) => (decoded = r))
    // The restore holds the bytes and is still decoding (a real one takes hundreds of ms) when the sign-out runs.
    const store = withMethod(inner, 'getMany', async (keys) => {
      const values = await inner.getMany(keys)
      if (keys.some((k) => k.includes(':s:'))) {
        segmentsRead()
        await decoding
      }
      return values
    })
    const persister = createStowageClientPersister({ store, throttleTime: 0, sliceMs: 0.001 })
    const qc = client()
    const restoring = persistQueryClientRestore({ queryClient: qc, persister })
    await read
    const removing = persister.removeClient()
    qc.clear()
    decoded()
    await removing
    await restoring
    expect(await inner.get('tanstack-query-client:manifest')).toBeUndefined()
    expect(qc.getQueryCache().getAll()).toHaveLength(0)
    // The persister's book was not refilled by the restore: the next save lists only what it wrote.
    qc.setQueryData(['account', 0], { owner: 'B', i: 0, text: 'of B' })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(await restoredOwners(name)).toStrictEqual(['B'])
  })

  it('a client handed over while removeClient runs is not saved', async () => {
    const name = dbName()
    await savedForA(name)
    const { store, cleared, release } = slowClear(name)
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    const qc = client()
    await persistQueryClientRestore({ queryClient: qc, persister })
    const removing = persister.removeClient()
    await cleared
    // TanStack's subscriber hands over the client on every cache change: a reply for A that settles now.
    qc.setQueryData(['account', 'late'], { owner: 'A', i: -1, text: 'late reply for A' })
    const handedOver = persistQueryClientSave({ queryClient: qc, persister })
    release()
    await removing
    await handedOver
    await persister.flush()
    await sleep(50)
    expect(await restoredOwners(name)).toStrictEqual([])
  })

  it('a save waiting for throttleTime is dropped, and its persistClient resolves', async () => {
    const name = dbName()
    const persister = createStowageClientPersister({ dbName: name, throttleTime: 50 })
    const qc = client()
    qc.setQueryData(['a'], { owner: 'A' })
    const saving = persistQueryClientSave({ queryClient: qc, persister }).then(() => 'settled')
    await persister.removeClient()
    expect(await Promise.race([saving, sleep(300).then(() => 'pending')])).toBe('settled')
    await sleep(100)
    expect(await restoredOwners(name)).toStrictEqual([])
  })

  it("another page's save in flight lands before the removal, and that page saves nothing after it", async () => {
    const name = dbName()
    await savedForA(name)
    const inner = createIdbStore({ dbName: name })
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let writing!: () => void
    const started = new Promise<void>((r) => (writing = r))
    // Page 2's writes are slow (a busy disk, a large client).
    const slow = withMethod(inner, 'set', async (k, v, o) => {
      writing()
      await gate
      return inner.set(k, v, o)
    })
    const page2 = client()
    const errors: Array<{ code: string }> = []
    const p2 = createStowageClientPersister({ store: slow, throttleTime: 0, onError: (e) => errors.push(e) })
    await persistQueryClientRestore({ queryClient: page2, persister: p2 })
    page2.setQueryData(['account', 0], { owner: 'A', i: 0, text: 'changed in page 2' })
    const saving2 = persistQueryClientSave({ queryClient: page2, persister: p2 })
    await started
    // Page 1 signs out while page 2's save is writing.
    const removing = createStowageClientPersister({ dbName: name }).removeClient()
    await sleep(20)
    release()
    await Promise.all([saving2, removing])
    expect(await restoredOwners(name)).toStrictEqual([])
    // Page 2 still holds A's queries in memory: its next save is not written.
    page2.setQueryData(['account', 1], { owner: 'A', i: 1, text: 'changed again in page 2' })
    await persistQueryClientSave({ queryClient: page2, persister: p2 })
    expect(await restoredOwners(name)).toStrictEqual([])
    expect(errors.map((e) => e.code)).toStrictEqual(['STORE_ERROR'])
    // Once reloaded (a new persister), it saves as before.
    const reloaded = client()
    const p3 = createStowageClientPersister({ dbName: name, throttleTime: 0 })
    await persistQueryClientRestore({ queryClient: reloaded, persister: p3 })
    reloaded.setQueryData(['account', 2], { owner: 'B', i: 2, text: 'of B' })
    await persistQueryClientSave({ queryClient: reloaded, persister: p3 })
    expect(await restoredOwners(name)).toStrictEqual(['B'])
  })
})

describe('two pages saving at the same time', () => {
  it('take turns: the last save wins whole, with every segment its manifest lists', async () => {
    const QUERIES = 120
    const options = { throttleTime: 0, segmentBytes: 2000, sliceMs: 0.001 }
    const name = dbName()
    const first = client()
    for (let i = 0; i < QUERIES; i++) first.setQueryData(['item', i], { version: 'v1', i, text: 'v1 '.repeat(100) })
    await persistQueryClientSave({ queryClient: first, persister: createStowageClientPersister({ dbName: name, ...options }) })

    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const inner = createIdbStore({ dbName: name })
    // Page 2's manifest write is slow: page 1's save comes while page 2's is still running.
    const gated = withMethod(inner, 'set', async (k, v, o) => {
      if (k.endsWith(':manifest')) await gate
      return inner.set(k, v, o)
    })
    const page1 = { qc: client(), persister: createStowageClientPersister({ dbName: name, ...options }) }
    const page2 = { qc: client(), persister: createStowageClientPersister({ store: gated, ...options }) }
    for (const { qc, persister } of [page1, page2]) await persistQueryClientRestore({ queryClient: qc, persister })

    page2.qc.setQueryData(['item', QUERIES - 1], { version: 'b', i: QUERIES - 1, text: '' })
    const saving2 = persistQueryClientSave({ queryClient: page2.qc, persister: page2.persister })
    await sleep(50)
    page1.qc.setQueryData(['item', 0], { version: 'a', i: 0, text: '' })
    const saving1 = persistQueryClientSave({ queryClient: page1.qc, persister: page1.persister })
    await sleep(50)
    release()
    await Promise.all([saving1, saving2])

    const qc = client()
    await persistQueryClientRestore({ queryClient: qc, persister: createStowageClientPersister({ dbName: name }) })
    const restored = qc.getQueryCache().getAll()
    expect(restored).toHaveLength(QUERIES)
    // Page 1 saved last (it waited for page 2's save): its change, and not page 2's.
    expect((qc.getQueryData(['item', 0]) as { version: string }).version).toBe('a')
    expect((qc.getQueryData(['item', QUERIES - 1]) as { version: string }).version).toBe('v1')
  })
})

describe("another page's removal, told at once (a BroadcastChannel)", () => {
  // Pages over stores of their own, as an app that passes `store` has: they hear the removals of
  // every page with the same key, so each test takes a key of its own.
  const uniqueKey = () => `client-${Math.random().toString(36).slice(2)}`

  /** Page 2 holds A's saved client (it saved it); its persister's errors are collected. */
  async function pageHoldingA(name: string, key: string) {
    const errors: Array<{ code: string }> = []
    const persister = createStowageClientPersister({ store: createIdbStore({ dbName: name }), key, throttleTime: 0, onError: (e) => errors.push(e) })
    const qc = client()
    qc.setQueryData(['account', 1], { owner: 'A', i: 1 })
    await persistQueryClientSave({ queryClient: qc, persister })
    return { qc, persister, errors }
  }

  async function ownersIn(name: string, key: string): Promise<string[]> {
    const qc = client()
    await persistQueryClientRestore({ queryClient: qc, persister: createStowageClientPersister({ store: createIdbStore({ dbName: name }), key }) })
    return qc
      .getQueryCache()
      .getAll()
      .map((q) => (q.state.data as { owner: string }).owner)
  }

  it('stops the other page when the removal record could not be written (a full disk)', async () => {
    const name = dbName()
    const key = uniqueKey()
    const page2 = await pageHoldingA(name, key)
    const inner = createIdbStore({ dbName: name })
    const full = withMethod(inner, 'set', async (k, v, o) => {
      if (k.endsWith(':removed')) throw new DOMException('the quota is exceeded', 'QuotaExceededError')
      return inner.set(k, v, o)
    })
    await expect(createStowageClientPersister({ store: full, key }).removeClient()).rejects.toThrow('the quota is exceeded')
    expect(await keysOf(inner, `${key}:`)).toStrictEqual([])
    page2.qc.setQueryData(['account', 2], { owner: 'A', i: 2 })
    await persistQueryClientSave({ queryClient: page2.qc, persister: page2.persister })
    expect(await ownersIn(name, key)).toStrictEqual([])
    expect(page2.errors.map((e) => e.code)).toStrictEqual(['STORE_ERROR'])
  })

  it('stops the other page when the removal record is evicted before its next save', async () => {
    const name = dbName()
    const key = uniqueKey()
    const page2 = await pageHoldingA(name, key)
    const inner = createIdbStore({ dbName: name })
    await createStowageClientPersister({ store: inner, key }).removeClient()
    await inner.delete(`${key}:removed`) // what a store's eviction does
    page2.qc.setQueryData(['account', 2], { owner: 'A', i: 2 })
    await persistQueryClientSave({ queryClient: page2.qc, persister: page2.persister })
    expect(await ownersIn(name, key)).toStrictEqual([])
    expect(page2.errors.map((e) => e.code)).toStrictEqual(['STORE_ERROR'])
  })

  it('is not heard under another key, nor by pages of another database', async () => {
    const name = dbName()
    const key = uniqueKey()
    const page2 = await pageHoldingA(name, key)
    await createStowageClientPersister({ store: createIdbStore({ dbName: name }), key: uniqueKey() }).removeClient()
    await createStowageClientPersister({ dbName: dbName(), key }).removeClient()
    await sleep(20)
    page2.qc.setQueryData(['account', 2], { owner: 'A', i: 2 })
    await persistQueryClientSave({ queryClient: page2.qc, persister: page2.persister })
    expect(await ownersIn(name, key)).toStrictEqual(['A', 'A'])
    expect(page2.errors).toStrictEqual([])
  })
})

describe('removeClient against pages that hold the signed-out user', () => {
  it('a restore begun while removeClient runs waits for it, and hands over nothing', async () => {
    const name = dbName()
    await savedForA(name)
    const { store, cleared, release } = slowClear(name)
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    const removing = persister.removeClient()
    await cleared
    // The app mounts PersistQueryClientProvider again (a sign-in route) while the removal deletes.
    const qc = client()
    const restoring = persistQueryClientRestore({ queryClient: qc, persister })
    await sleep(20)
    release()
    await Promise.all([removing, restoring])
    expect(qc.getQueryCache().getAll()).toHaveLength(0)
    qc.setQueryData(['me'], { owner: 'B' })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(await restoredOwners(name)).toStrictEqual(['B'])
  })

  it('a page that restores again without a reload still saves nothing, and tells onError once', async () => {
    const name = dbName()
    await savedForA(name)
    const errors: Array<{ code: string }> = []
    const page2 = client()
    const p2 = createStowageClientPersister({ dbName: name, throttleTime: 0, onError: (e) => errors.push(e) })
    await persistQueryClientRestore({ queryClient: page2, persister: p2 })
    await createStowageClientPersister({ dbName: name }).removeClient() // page 1 signs out
    await persistQueryClientRestore({ queryClient: page2, persister: p2 }) // a provider remounted, A still in memory
    page2.setQueryData(['account', 99], { owner: 'A', i: 99 })
    await persistQueryClientSave({ queryClient: page2, persister: p2 })
    page2.setQueryData(['account', 98], { owner: 'A', i: 98 })
    await persistQueryClientSave({ queryClient: page2, persister: p2 })
    expect(await restoredOwners(name)).toStrictEqual([])
    expect(errors.map((e) => e.code)).toStrictEqual(['STORE_ERROR'])
  })

  it('a page that never restored, whose save was handed over before another page signed out, saves nothing', async () => {
    const name = dbName()
    await savedForA(name)
    const page2 = client()
    page2.setQueryData(['account', 1], { owner: 'A', i: 1 })
    const p2 = createStowageClientPersister({ dbName: name, throttleTime: 100, onError: () => {} })
    const saving = persistQueryClientSave({ queryClient: page2, persister: p2 })
    await sleep(20) // the persister's first look at the removal record
    await createStowageClientPersister({ dbName: name }).removeClient()
    await saving
    expect(await restoredOwners(name)).toStrictEqual([])
  })

  it('the page that signed out saves on when its removal record is evicted', async () => {
    const name = dbName()
    const errors: unknown[] = []
    const inner = createIdbStore({ dbName: name })
    const p = createStowageClientPersister({ dbName: name, throttleTime: 0, onError: (e) => errors.push(e) })
    const qc = client()
    await persistQueryClientRestore({ queryClient: qc, persister: p })
    await p.removeClient()
    qc.setQueryData(['me'], { owner: 'B' })
    await persistQueryClientSave({ queryClient: qc, persister: p })
    await inner.delete('tanstack-query-client:removed') // what a store's eviction does
    qc.setQueryData(['more'], { owner: 'B2' })
    await persistQueryClientSave({ queryClient: qc, persister: p })
    expect(await restoredOwners(name)).toStrictEqual(['B', 'B2'])
    expect(errors).toStrictEqual([])
  })

  it('a sign-out does not hang on a page whose save outlasts its wait, and what that save writes after it is never restored', async () => {
    const name = dbName()
    await savedForA(name)
    const inner = createIdbStore({ dbName: name })
    // Page 2's writes hang (a huge client on a slow disk) until `open`, then land.
    const held: Array<() => void> = []
    let open = false
    const slow = withMethod(inner, 'set', (k, v, o) => (open ? inner.set(k, v, o) : new Promise<void>((resolve, reject) => held.push(() => void inner.set(k, v, o).then(resolve, reject)))))
    const page2 = client()
    const p2 = createStowageClientPersister({ store: slow, throttleTime: 0, onError: () => {} })
    await persistQueryClientRestore({ queryClient: page2, persister: p2 })
    page2.setQueryData(['x'], { owner: 'A' })
    const saving2 = persistQueryClientSave({ queryClient: page2, persister: p2 })
    await sleep(20)
    const removing = createStowageClientPersister({ dbName: name }).removeClient().then(() => 'resolved')
    expect(await Promise.race([removing, sleep(15_000).then(() => 'pending')])).toBe('resolved')
    expect(await restoredOwners(name)).toStrictEqual([])
    // Page 2's save ends after the sign-out: it finds the removal before its manifest, writes none
    // and deletes its segments; and the removal record evicted then changes nothing.
    open = true
    held.splice(0).forEach((land) => land())
    await saving2
    expect(await inner.get('tanstack-query-client:manifest')).toBeUndefined()
    expect(await keysOf(inner, 'tanstack-query-client:s:')).toStrictEqual([])
    await inner.delete('tanstack-query-client:removed')
    expect(await restoredOwners(name)).toStrictEqual([])
    const b = client()
    const pb = createStowageClientPersister({ dbName: name, throttleTime: 0 })
    await persistQueryClientRestore({ queryClient: b, persister: pb })
    b.setQueryData(['me'], { owner: 'B' })
    await persistQueryClientSave({ queryClient: b, persister: pb })
    expect(await restoredOwners(name)).toStrictEqual(['B'])
  }, 20_000)

  it('tabs that each removed the client (an expired one discarded in each, every tab signing out at once) all save on', async () => {
    const name = dbName()
    const old = client()
    old.setQueryData(['x'], { owner: 'B' })
    await persistQueryClientSave({ queryClient: old, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
    await sleep(30)
    const errors: unknown[] = []
    const tabs = [0, 1].map(() => ({ qc: client(), persister: createStowageClientPersister({ dbName: name, throttleTime: 0, onError: (e) => errors.push(e) }) }))
    // Both restore before either removes; TanStack removes the expired client in each (maxAge 10 ms).
    await Promise.all(tabs.map(({ qc, persister }) => persistQueryClientRestore({ queryClient: qc, persister, maxAge: 10 })))
    await sleep(2) // handed their queries after both removals (in the same millisecond a tab stops: the safe side)
    for (const [i, { qc, persister }] of tabs.entries()) {
      qc.setQueryData(['me'], { owner: 'B', tab: i })
      await persistQueryClientSave({ queryClient: qc, persister })
      expect(await restoredOwners(name)).toStrictEqual(['B'])
    }
    expect(errors).toStrictEqual([])
  })

  it('a tab that removed the client itself stops for any removal record that appears after it was next handed a client', async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const errors: Array<{ code: string }> = []
    const qc = client()
    const p = createStowageClientPersister({ dbName: name, throttleTime: 50, onError: (e) => errors.push(e) })
    await persistQueryClientRestore({ queryClient: qc, persister: p })
    await p.removeClient()
    qc.setQueryData(['me'], { owner: 'C' })
    const saving = persistQueryClientSave({ queryClient: qc, persister: p })
    await sleep(10)
    // Another removal record, of a form this build does not write (an id it cannot read, another build's).
    await inner.set('tanstack-query-client:removed', new Uint8Array([1, 2, 3]))
    await saving
    expect(await restoredOwners(name)).toStrictEqual([])
    expect(errors.map((e) => e.code)).toStrictEqual(['STORE_ERROR'])
  })

  it("a tab handed the next user's queries during its own removal stops when that user signs out in another tab", async () => {
    const name = dbName()
    const { store, cleared, release } = slowClear(name)
    const x = client()
    const px = createStowageClientPersister({ store, throttleTime: 0, onError: () => {} })
    await persistQueryClientRestore({ queryClient: x, persister: px })
    const removing = px.removeClient() // alice signs out in tab X; its delete is slow
    await cleared
    x.setQueryData(['me'], { owner: 'bob' }) // bob's queries reach X meanwhile: handed over, dropped
    void persistQueryClientSave({ queryClient: x, persister: px })
    release()
    await removing
    await createStowageClientPersister({ dbName: name }).removeClient() // bob signs out in tab Y
    await sleep(5)
    x.setQueryData(['me', 2], { owner: 'bob' })
    await persistQueryClientSave({ queryClient: x, persister: px })
    expect(await restoredOwners(name)).toStrictEqual([])
  })

  it("a tab that signed one user out and was handed the next user's queries stops when that user signs out in another tab", async () => {
    const name = dbName()
    const x = client()
    const px = createStowageClientPersister({ dbName: name, throttleTime: 200, onError: () => {} })
    await persistQueryClientRestore({ queryClient: x, persister: px })
    const py = createStowageClientPersister({ dbName: name, throttleTime: 0 })
    x.clear()
    await px.removeClient() // alice signs out in tab X
    x.setQueryData(['me'], { owner: 'bob' }) // bob signs in there; his queries wait for throttleTime
    void persistQueryClientSave({ queryClient: x, persister: px })
    await sleep(5)
    await py.removeClient() // bob signs out in tab Y, well within a second
    await sleep(300)
    await px.flush()
    expect(await restoredOwners(name)).toStrictEqual([])
  })

  it('overlapping removals of one tab keep what a client handed over during the first told', async () => {
    const name = dbName()
    const { store, cleared, release } = slowClear(name)
    const x = client()
    const px = createStowageClientPersister({ store, throttleTime: 0, onError: () => {} })
    await persistQueryClientRestore({ queryClient: x, persister: px })
    const first = px.removeClient()
    await cleared
    const second = px.removeClient() // a second sign-out path of the same page (a 401 handler and the button)
    x.setQueryData(['me'], { owner: 'bob' }) // bob's queries reach X during the removals
    void persistQueryClientSave({ queryClient: x, persister: px })
    release()
    await Promise.all([first, second])
    await createStowageClientPersister({ dbName: name }).removeClient() // bob signs out in tab Y
    await sleep(5)
    x.setQueryData(['me', 2], { owner: 'bob' })
    await persistQueryClientSave({ queryClient: x, persister: px })
    expect(await restoredOwners(name)).toStrictEqual([])
  })

  it("the tab that signs out: its own save that outlasts the removal's waits writes no manifest", async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const held: Array<() => void> = []
    let open = false
    // This tab's first save is slow (a large client on a slow disk): its segment writes hang until `open`.
    const slow = withMethod(inner, 'set', (k, v, o) => (open || !k.includes(':s:') ? inner.set(k, v, o) : new Promise<void>((resolve, reject) => held.push(() => void inner.set(k, v, o).then(resolve, reject)))))
    const qc = client()
    const p = createStowageClientPersister({ store: slow, throttleTime: 0, onError: () => {} })
    await persistQueryClientRestore({ queryClient: qc, persister: p })
    for (let i = 0; i < 30; i++) qc.setQueryData(['account', i], { owner: 'A', i })
    const saving = persistQueryClientSave({ queryClient: qc, persister: p })
    await sleep(50)
    qc.clear()
    await p.removeClient() // gives up on its own save after 10 s, and on the lock it holds after 10 more
    expect(await restoredOwners(name)).toStrictEqual([])
    open = true
    held.splice(0).forEach((land) => land())
    await saving
    await p.flush()
    expect(await restoredOwners(name)).toStrictEqual([])
    // The tab saves on, for the next user.
    qc.setQueryData(['me'], { owner: 'B' })
    await persistQueryClientSave({ queryClient: qc, persister: p })
    expect(await restoredOwners(name)).toStrictEqual(['B'])
  }, 40_000)
})

