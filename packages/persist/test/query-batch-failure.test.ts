// The writes TanStack asks for in one task go to the store in one setMany. One entry the store
// refuses (larger than an IndexedDB store's maxBytes) must fail alone: the other queries written
// with it are persisted, as when each was written on its own.
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf } from './helpers.js'

it('a query too large for the store does not keep the queries written with it from being persisted', async () => {
  const store = createIdbStore({ dbName: dbName(), maxBytes: 4096 })
  const persister = createStowageQueryPersister({ store, prefix: 'q' })
  const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
  qc.setQueryData(['small', 1], { n: 1 })
  qc.setQueryData(['big'], { big: crypto.getRandomValues(new Uint8Array(8192)) }) // incompressible: over maxBytes
  qc.setQueryData(['small', 2], { n: 2 })
  // TanStack's own persistQuery of each, asked for in one task (as its writes after a burst of fetches).
  const writes = [['small', 1], ['big'], ['small', 2]].map((queryKey) => persister.persistQueryByKey(queryKey, qc))
  const settled = await Promise.allSettled(writes)
  expect(settled.map((s) => s.status)).toStrictEqual(['fulfilled', 'rejected', 'fulfilled'])
  expect(await keysOf(store, 'q-')).toStrictEqual(['q-["small",1]', 'q-["small",2]'])
})
