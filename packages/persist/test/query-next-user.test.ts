// What the sign-out rules must not cost: an ordinary app keeps persisting everything, and after a
// sign-out in this page the next user's data persists (found by a review for regressions).
import { InfiniteQueryObserver, QueryClient } from '@tanstack/query-core'
import { describe, expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, sleep } from './helpers.js'

const stored = async (p: ReturnType<typeof createStowageQueryPersister>, key: unknown[]) => {
  const qc = new QueryClient()
  await p.restoreQueries(qc, { queryKey: key, exact: true })
  return qc.getQueryData(key)
}

describe('before any removal nothing is dropped', () => {
  it('fetch, optimistic updaters, invalidate+refetch, infinite fetchNextPage, 1,000 queries', async () => {
    const name = dbName()
    const p = createStowageQueryPersister({ dbName: name })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: p.persisterFn, staleTime: Infinity } } })
    const stop = p.persistManualUpdates(qc)
    let v = 0
    await qc.fetchQuery({ queryKey: ['todos'], queryFn: async () => [`t${v++}`] })
    qc.setQueryData<string[]>(['todos'], (old) => [...(old ?? []), 'optimistic'])
    await sleep(30)
    expect(await stored(p, ['todos'])).toStrictEqual(['t0', 'optimistic'])
    await qc.invalidateQueries({ queryKey: ['todos'] })
    await qc.fetchQuery({ queryKey: ['todos'], queryFn: async () => [`t${v++}`], staleTime: 0 })
    await sleep(30)
    expect(await stored(p, ['todos'])).toStrictEqual(['t1'])
    const inf = new InfiniteQueryObserver(qc, { queryKey: ['feed'], queryFn: async ({ pageParam }) => `page${pageParam}`, initialPageParam: 0, getNextPageParam: (_l, all) => all.length })
    const un = inf.subscribe(() => {})
    await sleep(30)
    await inf.fetchNextPage()
    await sleep(30)
    expect((await stored(p, ['feed']) as { pages: string[] }).pages).toStrictEqual(['page0', 'page1'])
    un()
    for (let i = 0; i < 1000; i++) await qc.fetchQuery({ queryKey: ['item', i], queryFn: async () => i })
    await sleep(200)
    expect((await keysOf(p.store, 'tanstack-query-')).length).toBe(1002)
    stop()
  }, 60_000)
})

describe('after a sign-out in this page, the next user', () => {
  it("two QueryClients, one persister each (same default prefix), both in the sign-out: both persist the next user's fetches and setQueryData", async () => {
    const name = dbName()
    const p1 = createStowageQueryPersister({ dbName: name })
    const p2 = createStowageQueryPersister({ dbName: name })
    const qc1 = new QueryClient({ defaultOptions: { queries: { persister: p1.persisterFn } } })
    const qc2 = new QueryClient({ defaultOptions: { queries: { persister: p2.persisterFn } } })
    const errors: unknown[] = []
    p2.persistManualUpdates(qc2, (e) => errors.push(e))
    await qc1.fetchQuery({ queryKey: ['a'], queryFn: async () => 'A of user 1' })
    await qc2.fetchQuery({ queryKey: ['b'], queryFn: async () => 'B of user 1' })
    await sleep(30)
    // signOut({ persisted: [p1, p2] }) after qc.clear()
    qc1.clear(), qc2.clear()
    await Promise.all([p1.removeClient(), p2.removeClient()])
    await sleep(30)
    await qc1.fetchQuery({ queryKey: ['a'], queryFn: async () => 'A of user 2' })
    await qc2.fetchQuery({ queryKey: ['b'], queryFn: async () => 'B of user 2' })
    qc2.setQueryData(['b2'], 'set by user 2')
    await sleep(50)
    expect(await keysOf(p1.store, 'tanstack-query-')).toStrictEqual(['tanstack-query-["a"]', 'tanstack-query-["b"]', 'tanstack-query-["b2"]'])
  })


  it("a refetch whose success comes 150 ms after its answer (structural sharing of a large answer): written", async () => {
    const name = dbName()
    const p = createStowageQueryPersister({ dbName: name })
    // Stands for replaceEqualDeep over a large list on a slow device: the success lands >100 ms after the answer.
    const slowSharing = (old: unknown, next: unknown) => {
      const until = Date.now() + 150
      while (Date.now() < until);
      return next
    }
    const qc = new QueryClient({ defaultOptions: { queries: { persister: p.persisterFn, structuralSharing: slowSharing } } })
    await qc.fetchQuery({ queryKey: ['report'], queryFn: async () => 'user 1 report' })
    await sleep(30)
    expect(await stored(p, ['report'])).toBe('user 1 report') // before any removal: written
    qc.clear()
    await p.removeClient()
    await sleep(5)
    await qc.fetchQuery({ queryKey: ['report'], queryFn: async () => 'user 2 report' })
    await sleep(50)
    expect(await stored(p, ['report'])).toBe('user 2 report')
  })
})
