// Removal notices must let their channels go: a page (or a test process, with fake-indexeddb) that
// makes persisters with a prefix or key per user, as the README's "Per-user data" advises, must not
// keep an open BroadcastChannel for every user it ever served. A review found one kept per name for
// the life of the process (10,000 prefixes: ~27 MB of heap, ~330 MB of RSS after GC); each
// persister's channel is now closed once the persister is collected.
import v8 from 'node:v8'
import vm from 'node:vm'
import type { Store } from '@stowage/core'
import { afterAll, expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'

v8.setFlagsFromString('--expose_gc')
const gc = vm.runInNewContext('gc') as () => void

const Original = globalThis.BroadcastChannel
afterAll(() => {
  globalThis.BroadcastChannel = Original
})

it('the channels of per-user prefixes no persister uses any more are let go', async () => {
  let collected = 0
  const registry = new FinalizationRegistry(() => collected++)
  globalThis.BroadcastChannel = class extends Original {
    constructor(name: string) {
      super(name)
      registry.register(this, name)
    }
  }
  ;(() => {
    for (let i = 0; i < 20; i++) {
      const store: Store = { name: 'plain', get: async () => undefined, set: async () => {}, delete: async () => false }
      createStowageQueryPersister({ store, prefix: `user-${Math.random().toString(36).slice(2)}` })
    }
  })()
  for (let i = 0; i < 100 && collected < 20; i++) {
    gc()
    await new Promise((r) => setTimeout(r, 10))
  }
  expect(collected).toBe(20)
})
