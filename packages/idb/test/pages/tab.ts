// Bundled into a real page by tabs.node.test.ts: what two browser tabs of one app would run.
import { createBroadcastInvalidation, createCache, type Cache } from '@stowage/core'
import { createIdbStore } from '../../src/index.js'

declare global {
  interface Window {
    setup(withChannel: boolean): void
    cache: Cache
    runWorker(): Promise<unknown>
  }
}

window.setup = (withChannel) => {
  window.cache = createCache({
    store: createIdbStore({ dbName: 'tabs' }),
    local: { ttl: 60_000 },
    invalidation: withChannel ? createBroadcastInvalidation('tabs') : undefined,
    namespace: 'app',
  })
}

window.runWorker = () =>
  new Promise((resolve, reject) => {
    const worker = new Worker('/worker.js', { type: 'module' })
    worker.onmessage = (event) => resolve(event.data)
    worker.onerror = (event) => reject(new Error(event.message))
  })
