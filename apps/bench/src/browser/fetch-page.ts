// Runs inside Chromium (bundled by fetch-bench.ts), in a browser started on an on-disk profile: one
// load of an app's data as its first screen does it, opening the database included. The JSON
// path: fetch → res.json() → an idb-keyval write of the value (structured clone); Stowage:
// fetchCached into a Cache over @stowage/idb (the envelope kept, revalidated with its ETag).
import { createCache } from '@stowage/core'
import { createIdbStore, fetchCachedWithInfo } from '@stowage/idb'
import { createStore, set } from 'idb-keyval'

export type FetchMethod = 'json' | 'stowage'

declare global {
  interface Window {
    loadOnce(method: FetchMethod, name: string): Promise<{ ms: number; source: string }>
  }
}

let sink: unknown

window.loadOnce = async (method, name) => {
  const t = performance.now()
  if (method === 'json') {
    const res = await fetch(`/json/${name}`)
    const value = await res.json()
    await set(name, value, createStore('fetch-json', 'keyval'))
    sink = value
    return { ms: performance.now() - t, source: String(res.status) }
  }
  const cache = createCache({ store: createIdbStore({ dbName: 'fetch-stowage' }), namespace: 'app' })
  const result = await fetchCachedWithInfo(`/stowage/${name}`, { cache })
  sink = result.value
  return { ms: performance.now() - t, source: result.source }
}
