// Removal notices must not keep persisters alive: Node keeps an open BroadcastChannel (unref'd or
// not), and with it whatever its listener refers to, for as long as the process runs, so a channel
// per persister kept every persister (and its store) a server made per request. A review found it;
// removal-notices.ts shares one channel per name and holds listeners weakly.
import v8 from 'node:v8'
import vm from 'node:vm'
import type { Store } from '@stowage/core'
import { expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'

v8.setFlagsFromString('--expose_gc')
const gc = vm.runInNewContext('gc') as () => void

it('the store of a per-query persister nothing refers to any more is garbage-collected', async () => {
  let collected = 0
  const registry = new FinalizationRegistry(() => collected++)
  ;(() => {
    for (let i = 0; i < 20; i++) {
      // A plain store: the memory store's sweep timer would keep it alive anyway.
      const store: Store = { name: 'plain', get: async () => undefined, set: async () => {}, delete: async () => false }
      createStowageQueryPersister({ store })
      registry.register(store, i)
    }
  })()
  for (let i = 0; i < 100 && collected < 20; i++) {
    gc()
    await new Promise((r) => setTimeout(r, 10))
  }
  expect(collected).toBe(20)
})
