// Sign-outs and what comes back after them: persisters of one page removed together, another tab's late write, a
// hydrated state of the same count (found by a review of the fixes before).
import { createIdbStore } from '@stowage/idb'
import { dehydrate, hydrate, QueryClient } from '@tanstack/query-core'
import { describe, expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, withMethod } from './helpers.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`
const deferred = () => {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}
const storedText = async (store: ReturnType<typeof createIdbStore>, prefix: string) => {
  const out: string[] = []
  for (const key of await keysOf(store, `${prefix}-`)) out.push(new TextDecoder().decode(await store.get(key)))
  return out.join('|')
}
const stored = async (p: ReturnType<typeof createStowageQueryPersister>, key: unknown[]) => {
  const qc = new QueryClient()
  await p.restoreQueries(qc, { queryKey: key, exact: true })
  return qc.getQueryData(key)
}

describe('persisters of one page signing out together', () => {
  it('removed together (as signOut does): p1 persists the next user', async () => {
    const name = dbName()
    const p1 = createStowageQueryPersister({ dbName: name })
    const p2 = createStowageQueryPersister({ dbName: name })
    const qc1 = new QueryClient({ defaultOptions: { queries: { persister: p1.persisterFn } } })
    const errors: unknown[] = []
    p1.persistManualUpdates(qc1, (e) => errors.push(e))
    qc1.clear()
    await Promise.allSettled([p1.removeClient(), p2.removeClient()]) // as signOut({ persisted: [p1, p2] }) removes them
    await sleep(30)
    await qc1.fetchQuery({ queryKey: ['a'], queryFn: async () => 'A of user 2' })
    await sleep(50)
    expect(errors).toStrictEqual([])
    expect(await stored(p1, ['a'])).toBe('A of user 2')
  })
})

describe("another tab's late write, restored after this page's sign-out", () => {

  it("another page's late write of A's answer (answered just after page 1's sign-out began), restored by page 1's persisterFn and updated: not written back for good", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const setGate = deferred()
    const deleteGate = deferred()
    const page2Store = {
      ...withMethod(inner, 'set', async (k, v, o) => {
        await setGate.promise
        return inner.set(k, v, o)
      }),
      delete: async (k: string) => {
        await deleteGate.promise
        return inner.delete(k)
      },
    }
    const page2 = createStowageQueryPersister({ store: page2Store, prefix })
    const qc2 = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    const page1 = createStowageQueryPersister({ store: inner, prefix })
    const qc1 = new QueryClient({ defaultOptions: { queries: { persister: page1.persisterFn, staleTime: Infinity } } })
    page1.persistManualUpdates(qc1)
    const removal = page1.removeClient() // A signs out in page 1 (removedAt = now)
    const until = Date.now() + 3
    while (Date.now() < until); // page 2's answer comes 3 ms later, its write starts before it hears the notice
    qc2.setQueryData(['inbox'], { owner: 'A', mail: 'secret' })
    const write = page2.persistQueryByKey(['inbox'], qc2)
    await removal
    await sleep(20) // page 2 heard the notice
    setGate.resolve() // its write lands after page 1's delete; its delete of it is still to come
    await sleep(20)
    // B, in page 1, mounts the inbox: the persisterFn restores the record
    const handed = await qc1.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'B', mail: 'b' }) })
    qc1.setQueryData(['inbox'], (old: object | undefined) => old && { ...old, read: true })
    deleteGate.resolve()
    await write
    await sleep(100)
    expect(await storedText(inner, prefix)).not.toContain('secret')
    // Handed over it was (README: the moment between that tab's late write and its delete), but
    // not written back: that tab's delete takes it away.
    expect(handed).toMatchObject({ mail: expect.any(String) })
  })
})

describe('hydrate() after a sign-out', () => {
  it("hydrate() of A's data rendered on the server 500 ms after B's answer, at the same count: not written", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const persister = createStowageQueryPersister({ store: inner, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    await persister.removeClient()
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'B', mail: 'b' }) })
    await sleep(500) // an RSC/SSR navigation rendered with A's cookie, half a second later
    const server = new QueryClient()
    await server.prefetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    hydrate(qc, dehydrate(server)) // dataUpdatedAt: the server's own clock, in step with the client's
    expect(qc.getQueryData(['inbox'])).toMatchObject({ owner: 'A' })
    await persister.persistQueryByKey(['inbox'], qc)
    expect(await storedText(inner, prefix)).not.toContain('secret')
  })
})
