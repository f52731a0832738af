// The per-query persister beside the whole-client one, per-user prefixes, and its sign-out
// (removeClient, which signOut calls): only this prefix's queries are listed, restored or removed.
import { createCodec, StowageErrorCode, type Store } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'
import { QueryClient, QueryObserver } from '@tanstack/query-core'
import { persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it, vi } from 'vitest'
import { createQueryStorage, createStowageClientPersister, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, sleep, withMethod } from './helpers.js'


/** A database holding a client the whole-client persister saved (default key) and a per-query persister over it (default prefix). */
async function both() {
  const name = dbName()
  const qc = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
  for (let i = 0; i < 5; i++) qc.setQueryData(['item', i], { i })
  await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
  return { name, perQuery: createStowageQueryPersister({ dbName: name }) }
}

async function restoredCount(name: string): Promise<number> {
  const restored = new QueryClient()
  await persistQueryClientRestore({ queryClient: restored, persister: createStowageClientPersister({ dbName: name }) })
  return restored.getQueryCache().getAll().length
}

describe('the default per-query prefix beside the whole-client key', () => {
  it("lists none of the whole-client persister's records ('tanstack-query-' is the start of 'tanstack-query-client:')", async () => {
    const { name, perQuery } = await both()
    expect(await createQueryStorage({ dbName: name }).entries()).toStrictEqual([])
    await perQuery.persisterGc()
    await perQuery.restoreQueries(new QueryClient())
    await perQuery.removeQueries()
    await perQuery.removeClient()
    expect(await restoredCount(name)).toBe(5)
  })
})

describe('per-user prefixes', () => {
  it("bob's persister neither restores nor removes bob-smith's queries", async () => {
    const name = dbName()
    const forUser = (user: string) => createStowageQueryPersister({ dbName: name, prefix: `tq-${user}` })
    const bobSmith = forUser('bob-smith')
    const qcBobSmith = new QueryClient({ defaultOptions: { queries: { persister: bobSmith.persisterFn } } })
    await qcBobSmith.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'bob-smith' }) })
    await sleep(20)
    const bob = forUser('bob')
    const qcBob = new QueryClient()
    await bob.restoreQueries(qcBob)
    expect(qcBob.getQueryData(['me'])).toBeUndefined()
    await bob.removeClient()
    await bob.removeQueries()
    const qcAgain = new QueryClient()
    await bobSmith.restoreQueries(qcAgain)
    expect(qcAgain.getQueryData(['me'])).toStrictEqual({ owner: 'bob-smith' })
  })

  it('lists damaged records under the prefix, so that TanStack removes them, and removeClient deletes what no codec reads', async () => {
    const name = dbName()
    const store = createIdbStore({ dbName: name })
    const persister = createStowageQueryPersister({ store })
    await store.set('tanstack-query-["damaged"]', new Uint8Array([1, 2, 3]))
    // An envelope of a format this version does not read (version byte 99).
    const newer = createCodec().encode({ queryHash: '["newer"]' })
    newer[1] = 99
    await store.set('tanstack-query-["newer"]', newer)
    await persister.persisterGc()
    expect(await keysOf(store, 'tanstack-query-')).toStrictEqual(['tanstack-query-["newer"]'])
    await persister.removeClient()
    expect(await keysOf(store, 'tanstack-query-')).toStrictEqual([])
  })
})

describe('removeClient of the per-query persister', () => {
  it('deletes its entries: signOut({ persisted: [persister] }) works for it', async () => {
    const name = dbName()
    const persister = createStowageQueryPersister({ dbName: name })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn } } })
    await qc.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'A' }) })
    await sleep(20)
    expect(await keysOf(createIdbStore({ dbName: name }), 'tanstack-query-')).toHaveLength(1)
    await persister.removeClient()
    expect(await keysOf(createIdbStore({ dbName: name }), 'tanstack-query-')).toStrictEqual([])
  })

  it('drops the setQueryData changes persistManualUpdates has not written yet, and waits for the write under way', async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    let batches = 0
    const store = withMethod(inner, 'setMany', (e) => (batches++, inner.setMany(e)))
    const persister = createStowageQueryPersister({ store, sliceMs: 1 })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    const stop = persister.persistManualUpdates(qc)
    for (let i = 0; i < 400; i++) qc.setQueryData(['account', i], { owner: 'A', i, text: `secret ${i} of A `.repeat(400) })
    while (batches === 0) await sleep(1) // the background writer is writing
    stop()
    qc.clear()
    await persister.removeClient()
    await sleep(500)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
  }, 30_000)
})

/** `inner` whose getMany (removeClient's read, after it listed the keys) waits for `release` once armed. */
function gatedStore(inner: Store) {
  let armed = false
  let listed!: () => void
  const afterListing = new Promise<void>((r) => (listed = r))
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const store = withMethod(inner, 'getMany', async (k) => {
    if (armed) {
      listed()
      await gate
    }
    return inner.getMany!(k)
  })
  return { store, arm: () => (armed = true), afterListing, release }
}

describe('removeClient of the per-query persister against writes still to come', () => {
  it("drops TanStack's write of a fetch that settles while it runs", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const { store, arm, afterListing, release } = gatedStore(inner)
    const persister = createStowageQueryPersister({ store })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    let reply!: (v: unknown) => void
    const inbox = qc.fetchQuery({ queryKey: ['inbox'], queryFn: () => new Promise((r) => (reply = r)) })
    await sleep(10)
    arm()
    const removing = persister.removeClient()
    await afterListing
    reply({ owner: 'A', mail: 'secret' }) // A's request, sent before the sign-out, answers now
    await inbox
    await sleep(20)
    release()
    await removing
    await sleep(20)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
  })

  it('drops the write of a fetch begun before it and settled after it, and writes the fetches begun after it', async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const persister = createStowageQueryPersister({ dbName: name })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    let calls = 0
    let reply!: (v: unknown) => void
    const queryFn = () => (calls++ === 0 ? Promise.resolve({ owner: 'A', n: 1 }) : new Promise((r) => (reply = r)))
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn })
    await sleep(20)
    void qc.fetchQuery({ queryKey: ['inbox'], queryFn, staleTime: 0 }).catch(() => {}) // A's refetch (polling) in flight
    await sleep(10)
    qc.clear()
    await persister.removeClient()
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
    reply({ owner: 'A', n: 2 }) // A's answer arrives after the sign-out
    await sleep(50)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
    // B's own fetch of the same query, begun after the sign-out, is written.
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'B', n: 3 }) })
    await sleep(50)
    const b = new QueryClient()
    await createStowageQueryPersister({ dbName: name }).restoreQueries(b)
    expect(b.getQueryData(['inbox'])).toStrictEqual({ owner: 'B', n: 3 })
  })

  it('drops a setQueryData that persistManualUpdates notes while it runs', async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const { store, arm, afterListing, release } = gatedStore(inner)
    const persister = createStowageQueryPersister({ store })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    persister.persistManualUpdates(qc)
    arm()
    const removing = persister.removeClient()
    await afterListing
    qc.setQueryData(['late'], { owner: 'A' }) // a mutation's onSuccess for A settles now
    await sleep(50)
    release()
    await removing
    await sleep(20)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
    qc.setQueryData(['after'], { owner: 'B' })
    await sleep(50)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual(['tanstack-query-["after"]'])
  })

  it("drops exactly the late answer's write: the next user's write of the same query, in the same task, lands", async () => {
    const name = dbName()
    const persister = createStowageQueryPersister({ dbName: name })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    await qc.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'A', v: 1 }) })
    await sleep(20)
    let answerA!: (v: unknown) => void
    void qc.fetchQuery({ queryKey: ['me'], queryFn: () => new Promise((r) => (answerA = r)), staleTime: 0 }).catch(() => {})
    await sleep(20)
    qc.clear()
    await persister.removeClient()
    // B's fetch of the same query begins after the removal; B's answer, then A's late one, come in one task.
    let answerB!: (v: unknown) => void
    const fetchingB = qc.fetchQuery({ queryKey: ['me'], queryFn: () => new Promise((r) => (answerB = r)) })
    await sleep(20)
    answerB({ owner: 'B', v: 1 })
    answerA({ owner: 'A', v: 2 })
    await fetchingB
    await sleep(50)
    const bytes = await createIdbStore({ dbName: name }).get('tanstack-query-["me"]')
    expect(bytes && createCodec().decode<{ state: { data: { owner: string } } }>(bytes).state.data.owner).toBe('B')
  })

  it('drops the write after every late fetch of one query (a refetch that cancelled the fetch before it)', async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const persister = createStowageQueryPersister({ dbName: name })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    const replies: Array<(v: unknown) => void> = []
    let calls = 0
    const queryFn = () => (calls++ === 0 ? Promise.resolve({ owner: 'A', n: 0 }) : new Promise((r) => replies.push(r)))
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn })
    await sleep(20)
    void qc.fetchQuery({ queryKey: ['inbox'], queryFn, staleTime: 0 }).catch(() => {}) // polling
    await vi.waitFor(() => expect(replies).toHaveLength(1)) // its persister has looked, the fetch is out
    void qc.refetchQueries({ queryKey: ['inbox'] }).catch(() => {}) // after a mutation: cancels and fetches again
    await vi.waitFor(() => expect(replies).toHaveLength(2))
    qc.clear()
    await persister.removeClient()
    replies[0]!({ owner: 'A', n: 1 })
    replies[1]!({ owner: 'A', n: 2 })
    await sleep(100)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
  })

  it("with filters, decides as TanStack does when the fetch begins: a query unmounted during the sign-out is still caught", async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const persister = createStowageQueryPersister({ dbName: name, filters: { type: 'active' } })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    let reply: ((v: unknown) => void) | undefined
    let calls = 0
    const observer = new QueryObserver(qc, { queryKey: ['inbox'], queryFn: () => (calls++ === 0 ? Promise.resolve({ owner: 'A', n: 0 }) : new Promise((r) => (reply = r))) })
    const unsubscribe = observer.subscribe(() => {}) // a mounted component fetches
    await vi.waitFor(() => expect(observer.getCurrentResult().status).toBe('success'))
    void observer.refetch() // polling: in flight at sign-out
    await vi.waitFor(() => expect(reply).toBeDefined()) // its persister has looked, the fetch is out
    unsubscribe() // the app goes to its sign-in page
    qc.clear()
    await persister.removeClient()
    reply!({ owner: 'A', mail: 'secret' })
    await sleep(100)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
  })
})


describe("the per-query persister against another page's removal (told at once)", () => {
  it("drops the write of a fetch begun before another page's sign-out; that page persists and restores nothing more until reloaded, and says so", async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const page2 = createStowageQueryPersister({ dbName: name })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    const errors: unknown[] = []
    page2.persistManualUpdates(qc, (e) => errors.push(e))
    let reply!: (v: unknown) => void
    const inbox = qc.fetchQuery({ queryKey: ['inbox'], queryFn: () => new Promise((r) => (reply = r)) })
    await sleep(10)
    const page1 = createStowageQueryPersister({ dbName: name })
    await page1.removeClient() // page 1 signs A out
    reply({ owner: 'A', mail: 'secret' }) // page 2's request for A, sent before, answers now
    await inbox
    await sleep(50)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ code: StowageErrorCode.STORE_ERROR, message: expect.stringContaining('until it is reloaded') })
    // Page 2 still runs A's session: what it fetches or sets from now on is not written…
    await qc.fetchQuery({ queryKey: ['later'], queryFn: async () => ({ owner: 'A' }) })
    qc.setQueryData(['inbox'], { owner: 'A', mail: 'draft' })
    await sleep(50)
    expect(await keysOf(inner, 'tanstack-query-')).toStrictEqual([])
    // …nor does it restore what page 1 writes for the next user.
    const next = new QueryClient({ defaultOptions: { queries: { persister: page1.persisterFn, gcTime: Infinity } } })
    await next.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'B' }) })
    await vi.waitFor(async () => expect(await keysOf(inner, 'tanstack-query-')).toHaveLength(1))
    await page2.restoreQueries(qc)
    expect(qc.getQueryData(['me'])).toBeUndefined()
    expect(await qc.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'A' }) })).toStrictEqual({ owner: 'A' })
    expect(errors).toHaveLength(1) // told once
    // A reloaded page persists again.
    const reloaded = createStowageQueryPersister({ dbName: name })
    const qc3 = new QueryClient({ defaultOptions: { queries: { persister: reloaded.persisterFn, gcTime: Infinity } } })
    await qc3.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'B' }) })
    await vi.waitFor(async () => expect(await keysOf(inner, 'tanstack-query-')).toHaveLength(2))
  })

  it('deletes a write that was under way when another page signed out, once it lands', async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const prefix = `q-${Math.random().toString(36).slice(2)}` // pages over stores of their own: a prefix no other test uses
    let landing!: () => void
    const landed = new Promise<void>((r) => (landing = r))
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const slowWrites = withMethod(inner, 'set', async (k, v, o) => {
      await gate
      await inner.set(k, v, o)
      landing()
    })
    const page2 = createStowageQueryPersister({ store: slowWrites, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    await sleep(10) // TanStack's write is under way, held by the store
    await createStowageQueryPersister({ store: inner, prefix }).removeClient()
    release()
    await landed
    await vi.waitFor(async () => expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([]))
  })
})
