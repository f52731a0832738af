// Runs inside a Web Worker: the same store and cache, no DOM.
import { createCache } from '@stowage/core'
import { createIdbStore } from '../../src/index.js'

const store = createIdbStore({ dbName: 'tabs' })
const cache = createCache({ store, namespace: 'app' })
const fromPage = await cache.get('from-page')
await cache.set('from-worker', { at: new Date(5), big: 2n ** 70n })
postMessage({ fromPage, backend: store.backend })
