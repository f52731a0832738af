// deserialize waits for a decode slice: another page's removal notice that comes while the record
// waits must keep it from the client (the read itself ended before the notice).
import { createCodec, createMemoryStore, type Codec } from '@stowage/core'
import { QueryClient } from '@tanstack/query-core'
import { expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { sleep, unique, withHeldNotices } from './helpers.js'


it("another page's sign-out told while A's record waits for its decode slice: the restore hands nothing over", async () => {
  const prefix = unique('q')
  const store = createMemoryStore()
  // A's query, written by an earlier page.
  const writer = withHeldNotices(() => createStowageQueryPersister({ store, prefix })).made // a page long gone: hears nothing
  const qcA = new QueryClient({ defaultOptions: { queries: { persister: writer.persisterFn, gcTime: Infinity } } })
  qcA.setQueryData(['inbox'], { owner: 'A', mail: 'secret' })
  await writer.persistQueryByKey(['inbox'], qcA)

  // The notice is handed over as the record's decode slice runs: after its read ended.
  const real = createCodec()
  let deliver = () => {}
  const codec = { encode: (v: unknown) => real.encode(v), decode: (b: Uint8Array) => (deliver(), real.decode(b)) } as unknown as Codec
  const held = withHeldNotices(() => createStowageQueryPersister({ store, prefix, codec }))
  const page = held.made
  page.persistManualUpdates(new QueryClient(), () => {}) // hears the stop quietly
  const tab1 = new BroadcastChannel(`stowage-persist-queries:${prefix}`)
  tab1.postMessage({ removal: 'another-page' })
  // Held once it has come (a fixed 20 ms was not always enough in a busy Firefox).
  while (held.held() === 0) await sleep(5)
  deliver = held.deliver
  const qc = new QueryClient({ defaultOptions: { queries: { persister: page.persisterFn, staleTime: Infinity } } })
  const inbox = await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'fetched' }) })
  tab1.close()
  expect(inbox).toStrictEqual({ owner: 'fetched' })
})
