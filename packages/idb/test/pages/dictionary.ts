// Bundled into a real page by fetch-cached-dictionary.node.test.ts: an app that was never given a
// dictionary fetches dictionary-compressed envelopes through fetchCached over IndexedDB.
import { createCache, loadDictionary } from '@stowage/core'
import { createIdbStore, fetchCachedWithInfo } from '../../src/index.js'

declare global {
  interface Window {
    dict: {
      fetch(path: string): Promise<{ source: string; value: unknown } | { error: string }>
      stored(id: number): Promise<number | null>
      keys(): Promise<string[]>
    }
  }
}

const store = createIdbStore({ dbName: 'dictionaries' })
const cache = createCache({ store, namespace: 'app', local: false })

window.dict = {
  async fetch(path) {
    try {
      const { source, value } = await fetchCachedWithInfo(new URL(path, location.href).href, { cache })
      return { source, value }
    } catch (e) {
      return { error: `${(e as { code?: string }).code}: ${(e as Error).message}` }
    }
  },
  async stored(id) {
    return (await loadDictionary(store, id))?.length ?? null
  },
  async keys() {
    const out: string[] = []
    for await (const key of store.keys!('')) out.push(key)
    return out.sort()
  },
}
