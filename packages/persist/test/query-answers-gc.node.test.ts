// The persister finds the Queries it fetched by hash, holding them weakly: a Query the client let go
// of is collected, also when two answers came before one of TanStack's scheduled writes (a review
// found a version of the persister that kept such Queries for good).
import v8 from 'node:v8'
import vm from 'node:vm'
import type { Store } from '@stowage/core'
import { notifyManager, QueryClient } from '@tanstack/query-core'
import { afterEach, expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'

v8.setFlagsFromString('--expose_gc')
const gc = vm.runInNewContext('gc') as () => void
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
afterEach(() => notifyManager.setScheduler((cb) => setTimeout(cb, 0)))

async function collectedQueries(answersPerWrite: 1 | 2): Promise<number> {
  const store: Store = { name: 'plain', get: async () => undefined, set: async () => {}, delete: async () => false }
  const persister = createStowageQueryPersister({ store, prefix: `leak-${Math.random()}` })
  const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
  notifyManager.setScheduler((cb) => setTimeout(cb, 100)) // a background tab
  let collected = 0
  const registry = new FinalizationRegistry(() => collected++)
  for (let i = 0; i < 10; i++) {
    await qc.fetchQuery({ queryKey: ['k', i], queryFn: async () => ({ v: 1 }) })
    if (answersPerWrite === 2) await qc.fetchQuery({ queryKey: ['k', i], queryFn: async () => ({ v: 2 }), staleTime: 0 })
    registry.register(qc.getQueryCache().find({ queryKey: ['k', i] })!, i)
  }
  await sleep(300) // every scheduled write ran
  qc.clear()
  for (let i = 0; i < 50 && collected < 10; i++) {
    gc()
    await sleep(10)
  }
  void persister // the persister lives on, as in a long-lived page
  return collected
}

it('control: one answer per scheduled write, every Query the cache let go of is collected', async () => {
  expect(await collectedQueries(1)).toBe(10)
})

it('two answers before one scheduled write: the Queries the cache let go of are collected too', async () => {
  expect(await collectedQueries(2)).toBe(10)
})
