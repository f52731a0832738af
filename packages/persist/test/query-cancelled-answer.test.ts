// A fetch that answered but never succeeded (cancelled, its queryFn ignoring the signal) must not
// lend its removal to the next success of the Query, TanStack's own restore of another tab's late
// write of the signed-out user's answer among them (found by a review).
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, deferred, keysOf, lateTabStore, sleep, unique, withHeldNotices } from './helpers.js'

const storedText = async (store: ReturnType<typeof createIdbStore>, prefix: string) => {
  const out: string[] = []
  for (const key of await keysOf(store, `${prefix}-`)) out.push(new TextDecoder().decode(await store.get(key)))
  return out.join('|')
}

async function lateWriteRestored(cancelledFirst: boolean) {
  const inner = createIdbStore({ dbName: dbName() })
  const prefix = unique('q')
  const page2Store = lateTabStore(inner)
  // Page 2 (another tab) hears page 1's notice only once its write is under way.
  const { made: page2, deliver } = withHeldNotices(() => createStowageQueryPersister({ store: page2Store.store, prefix }))
  const qc2 = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
  const page1 = createStowageQueryPersister({ store: inner, prefix })
  const qc1 = new QueryClient({ defaultOptions: { queries: { persister: page1.persisterFn, staleTime: Infinity } } })
  page1.persistManualUpdates(qc1)
  const removal = page1.removeClient() // A signs out in page 1
  const until = Date.now() + 3
  while (Date.now() < until);
  qc2.setQueryData(['inbox'], { owner: 'A', mail: 'secret' })
  const write = page2.persistQueryByKey(['inbox'], qc2)
  await page2Store.setReached
  deliver()
  await removal
  await sleep(20)
  if (cancelledFirst) {
    // B's first load of the inbox is cancelled (cancelQueries in an optimistic update, a navigation);
    // its queryFn ignores the signal and answers anyway: noteAnswer runs, no success follows.
    const answer = deferred()
    let called!: () => void
    const queryFnCalled = new Promise<void>((r) => (called = r))
    const first = qc1.fetchQuery({
      queryKey: ['inbox'],
      queryFn: async () => {
        called()
        await answer.promise
        return { owner: 'B', mail: 'b' }
      },
    })
    first.catch(() => {})
    await queryFnCalled
    await qc1.cancelQueries({ queryKey: ['inbox'] })
    answer.resolve()
    await sleep(10)
    expect(qc1.getQueryData(['inbox'])).toBeUndefined()
  }
  page2Store.releaseSet() // page 2's late write of A's answer lands
  await sleep(20)
  // B mounts the inbox again: TanStack's persisterFn restores page 2's record
  const handed = await qc1.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'B', mail: 'b' }) })
  qc1.setQueryData(['inbox'], (old: object | undefined) => old && { ...old, read: true })
  page2Store.releaseDelete() // page 2 deletes its late write
  await write
  await sleep(100)
  return { handed, text: await storedText(inner, prefix) }
}

it("another tab's late write restored, updated: not written back", async () => {
  const { handed, text } = await lateWriteRestored(false)
  expect(handed).toMatchObject({ owner: 'A' })
  expect(text).not.toContain('secret')
})

it("after a cancelled first load whose queryFn answered anyway: the restored data is not taken for B's, nor written back", async () => {
  const { handed, text } = await lateWriteRestored(true)
  expect(handed).toMatchObject({ owner: 'A' })
  expect(text).not.toContain('secret')
})
