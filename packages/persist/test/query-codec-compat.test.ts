// Entries written with the per-query persister's earlier default (deflated from 1 KiB) are still
// read by its default codec, listed by entries() and restored.
import { createMemoryStore } from '@stowage/core'
import { QueryClient } from '@tanstack/query-core'
import { expect, it } from 'vitest'
import { createStowageQueryPersister, PERSIST_CODEC_OPTIONS } from '../src/tanstack-query/index.js'

it('a query written deflated by the old default is restored by the new one', async () => {
  const store = createMemoryStore()
  const old = createStowageQueryPersister({ store, prefix: 'q', codec: PERSIST_CODEC_OPTIONS })
  const qc = new QueryClient({ defaultOptions: { queries: { persister: old.persisterFn, gcTime: Infinity } } })
  const data = { rows: Array.from({ length: 500 }, (_, i) => ({ i, name: `row ${i}` })) }
  qc.setQueryData(['big'], data)
  await old.persistQueryByKey(['big'], qc)
  const now = createStowageQueryPersister({ store, prefix: 'q' })
  const restored = new QueryClient()
  await now.restoreQueries(restored)
  expect(restored.getQueryData(['big'])).toStrictEqual(data)
  const fetched = await new QueryClient({ defaultOptions: { queries: { persister: now.persisterFn, staleTime: Infinity } } }).fetchQuery({ queryKey: ['big'], queryFn: async () => 'refetched' })
  expect(fetched).toStrictEqual(data)
})
