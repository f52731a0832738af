// Sign-outs and what comes back after them: persisters of one page removed together, a hydrated
// state of the same count as the next user's answer (found by a review of the fixes before; another
// tab's late write is in query-cancelled-answer.test.ts).
import { createIdbStore } from '@stowage/idb'
import { dehydrate, hydrate, QueryClient } from '@tanstack/query-core'
import { describe, expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, sleep, unique } from './helpers.js'

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
