// Every write of an answer fetched before a sign-out is dropped, whoever makes it and whatever
// became of the query since: TanStack's scheduled write (notifyManager.schedule; a background tab
// runs it up to a second later), the app's own persistQuery / persistQueryByKey, after the state
// changed (an invalidation, a refetch beginning), and a retry of a fetch begun before the sign-out
// (TanStack calls the persister again for each attempt). And the next user's answer, fetched after
// it, is written. Found by a review; each test failed before the persister judged answers by Query.
import { createIdbStore } from '@stowage/idb'
import { notifyManager, QueryClient } from '@tanstack/query-core'
import { afterEach, describe, expect, it } from 'vitest'
import { createQueryStorage, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf } from './helpers.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`
const backgroundTab = () => notifyManager.setScheduler((cb) => setTimeout(cb, 300))
afterEach(() => notifyManager.setScheduler((cb) => setTimeout(cb, 0)))

describe("the app's own write of an answer, then its state changes before TanStack's scheduled write", () => {
  it("this tab: persistQueryByKey, sign-out, invalidateQueries: TanStack's scheduled write of A's answer is dropped", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const persister = createStowageQueryPersister({ store: inner, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    backgroundTab()
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    await persister.persistQueryByKey(['inbox'], qc)
    await persister.removeClient()
    await qc.invalidateQueries({ refetchType: 'none' }) // the sign-out marks every query stale: state S2 = { ...S1, isInvalidated }
    await sleep(600) // TanStack's write of S2 (A's data)
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })

  it("another tab's sign-out: persistQueryByKey, the notice, a refetch begins: TanStack's scheduled write of A's answer is dropped", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const page2 = createStowageQueryPersister({ store: inner, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    backgroundTab()
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    await page2.persistQueryByKey(['inbox'], qc)
    // Page 1 signs A out: notice at once, then its delete.
    const tab1 = new BroadcastChannel(`stowage-persist-queries:${prefix}`)
    tab1.postMessage({ removal: '1' })
    await createQueryStorage({ store: inner, prefix }).removeAll()
    // Page 2 begins a refetch (focus, polling): state S2 = { ...S1, fetchStatus: 'fetching' }, A's data.
    void qc.fetchQuery({ queryKey: ['inbox'], queryFn: () => new Promise(() => {}), staleTime: 0 }).catch(() => {})
    await sleep(600)
    tab1.close()
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })
})

describe('two answers of one query before one scheduled write', () => {
  it("the next user's first fetch after the sign-out (same Query) is written", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const persister = createStowageQueryPersister({ store: inner, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    backgroundTab()
    await qc.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'A', v: 1 }) })
    // A refetch (polling, an invalidation) answers before TanStack's first write ran: records [0, 0].
    await qc.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'A', v: 2 }), staleTime: 0 })
    await sleep(600) // both writes see the second state
    await persister.removeClient()
    notifyManager.setScheduler((cb) => setTimeout(cb, 0))
    // B signs in; the same Query (the app reset it rather than clearing the cache) fetches, begun after the removal.
    await qc.resetQueries({ queryKey: ['me'] })
    await qc.fetchQuery({ queryKey: ['me'], queryFn: async () => ({ owner: 'B', v: 1 }), staleTime: 0 })
    await sleep(100)
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([`${prefix}-["me"]`])
  })
})

describe('a retry', () => {
  it("a fetch begun before the sign-out whose retry runs after it: its answer is not written", async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const persister = createStowageQueryPersister({ store: inner, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    let attempts = 0
    let failed!: () => void
    const firstFailed = new Promise<void>((r) => (failed = r))
    const token = 'A' // A's credentials, captured when the fetch began
    const inbox = qc.fetchQuery({
      queryKey: ['inbox'],
      retry: 1,
      retryDelay: 200,
      queryFn: async () => {
        if (attempts++ === 0) {
          failed()
          throw new Error('503') // A's first attempt fails; TanStack retries in 200 ms
        }
        return { owner: token, mail: 'secret' }
      },
    })
    await firstFailed
    await persister.removeClient() // A signs out during the retry delay
    await inbox // the retry (TanStack calls the persister again) answers A's inbox
    await sleep(100)
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })
})
