// TanStack writes a query in a callback it schedules (notifyManager.schedule, setTimeout 0) after
// the queryFn resolves. A background tab runs such timers on its next wake-up (Chromium aligns them
// to 1 s), while a BroadcastChannel message is delivered at once. A fetch answered before a removal
// whose write runs after it must not land after the removal's delete and stay (the next user of
// the machine would restore the signed-out user's query): a review found it did, in the tab that
// signed out and in the tabs it told; and that a notice's time against this tab's clock missed a
// write when the clock stepped back.
import { createIdbStore } from '@stowage/idb'
import { notifyManager, QueryClient } from '@tanstack/query-core'
import { afterEach, describe, expect, it } from 'vitest'
import { createQueryStorage, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, deferred, keysOf, sleep, unique, withMethod } from './helpers.js'

// A background tab: TanStack's scheduled callbacks (setTimeout 0) run at its next timer wake-up.
const backgroundTab = () => notifyManager.setScheduler((cb) => setTimeout(cb, 300))
afterEach(() => notifyManager.setScheduler((cb) => setTimeout(cb, 0)))

describe('a fetch answered before a removal, written after it (TanStack schedules its write)', () => {
  it("another tab's sign-out: this tab's write of the signed-out user's answer, run after it, is dropped", async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const prefix = unique('q')
    const page2 = createStowageQueryPersister({ store: inner, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    backgroundTab()
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    // Page 1 signs A out: its notice reaches page 2 at once, then it deletes the prefix.
    const tab1 = new BroadcastChannel(`stowage-persist-queries:${prefix}`)
    tab1.postMessage({ removal: '1', at: Date.now() })
    await createQueryStorage({ store: inner, prefix }).removeAll()
    await sleep(600) // page 2's timer wakes up
    tab1.close()
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })

  it('its own sign-out, in a background tab (session expiry): the write that runs after removeClient ended is dropped', async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    const persister = createStowageQueryPersister({ store: inner, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
    backgroundTab()
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    await persister.removeClient()
    await sleep(600)
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })
})

describe("a notice and this tab's clock", () => {
  it('the system clock steps back 2 s between the sign-out and a write of this tab that lands after its delete: the write goes all the same', async () => {
    const inner = createIdbStore({ dbName: dbName() })
    const prefix = unique('q')
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let underWay!: () => void
    const started = new Promise<void>((r) => (underWay = r))
    const written = deferred()
    const slow = withMethod(inner, 'set', async (k, v, o) => {
      underWay()
      await gate
      await inner.set(k, v, o)
      written.resolve()
    })
    const page2 = createStowageQueryPersister({ store: slow, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
    await started
    const at = Date.now() // page 1's removal begins
    await createQueryStorage({ store: inner, prefix }).removeAll()
    const now = Date.now
    Date.now = () => now() - 2000 // NTP (or the user) steps the clock back
    try {
      release()
      await written.promise // page 2's write lands after the delete; the notice comes after it
      await sleep(20)
      const tab1 = new BroadcastChannel(`stowage-persist-queries:${prefix}`)
      tab1.postMessage({ removal: '1', at })
      await sleep(100)
      tab1.close()
    } finally {
      Date.now = now
    }
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([])
  })
})
