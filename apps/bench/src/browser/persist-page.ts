// Runs inside Chromium (bundled by persist-bench.ts): a TanStack Query client of 5,000 queries of
// real data saved and restored by TanStack's own persisters over idb-keyval and by Stowage's
// whole-client persister over @stowage/idb. Per method and round: stored bytes, the time to save,
// the longest main-thread task while saving, and the time to restore into a new client.
import { createStowageClientPersister } from '@stowage/persist/tanstack-query'
import { createIdbStore } from '@stowage/idb'
import { createAsyncStoragePersister } from '@tanstack/query-async-storage-persister'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientRestore, persistQueryClientSave, type PersistedClient, type Persister } from '@tanstack/query-persist-client-core'
import { createStore, del, get, set } from 'idb-keyval'

export interface PersistSample {
  /** Bytes IndexedDB was given to keep (JSON: the string's UTF-8 length; Stowage: the envelopes), `undefined` where not measurable in the page. */
  bytes: number | undefined
  saveMs: number
  /** The longest task the browser reported (PerformanceObserver 'longtask', only tasks ≥ 50 ms), 0 when none. */
  longTaskMs: number
  /** The longest gap between two turns of a MessageChannel heartbeat while saving: the longest task, also under 50 ms. */
  longestGapMs: number
  restoreMs: number
  restoredQueries: number
}

export type PersistMethod = 'json' | 'clone' | 'stowage' | 'stowage-plain'

declare global {
  interface Window {
    runPersistBench(payloads: unknown[], queries: number, method: PersistMethod, round: number): Promise<PersistSample>
  }
}

const openDb = (name: string) =>
  new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name)
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => reject(open.error)
  })
const deleteDb = (name: string) =>
  new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase(name)
    req.onsuccess = req.onerror = req.onblocked = () => resolve()
  })
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Sum of the stored envelopes' byte lengths, read straight from IndexedDB. */
async function storedEnvelopeBytes(dbName: string): Promise<number> {
  const db = await openDb(dbName)
  const rows = await new Promise<Array<{ value: ArrayBuffer }>>((resolve, reject) => {
    const req = db.transaction('entries').objectStore('entries').getAll()
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error)
  })
  db.close()
  return rows.reduce((n, r) => n + r.value.byteLength, 0)
}

// Measures the main thread while `work` runs: long tasks as the browser reports them, and the
// longest gap between turns of a heartbeat (a MessageChannel posting to itself, unclamped).
async function watchMainThread<T>(work: () => Promise<T>): Promise<{ result: T; longTaskMs: number; longestGapMs: number; ms: number }> {
  let longTaskMs = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTaskMs = Math.max(longTaskMs, entry.duration)
  })
  observer.observe({ type: 'longtask', buffered: false })
  const channel = new MessageChannel()
  let last = performance.now()
  let longestGapMs = 0
  let beating = true
  channel.port1.onmessage = () => {
    const now = performance.now()
    longestGapMs = Math.max(longestGapMs, now - last)
    last = now
    if (beating) channel.port2.postMessage(0)
  }
  channel.port2.postMessage(0)
  const t = performance.now()
  const result = await work()
  const ms = performance.now() - t
  beating = false
  await quiet(200) // long-task entries are delivered after the task
  observer.disconnect()
  channel.port1.close()
  return { result, longTaskMs, longestGapMs, ms }
}

// TanStack's docs ("Building a persister", IndexedDB): the client as one structured clone in idb-keyval.
function idbKeyvalClonePersister(store: ReturnType<typeof createStore>): Persister {
  return {
    persistClient: async (client: PersistedClient) => {
      await set('reactQuery', client, store)
    },
    restoreClient: async () => get<PersistedClient>('reactQuery', store),
    removeClient: async () => {
      await del('reactQuery', store)
    },
  }
}

// createAsyncStoragePersister over idb-keyval, its default JSON serializer.
function idbKeyvalJsonPersister(store: ReturnType<typeof createStore>): Persister {
  return createAsyncStoragePersister({
    storage: { getItem: (key) => get<string>(key, store), setItem: (key, value: string) => set(key, value, store), removeItem: (key) => del(key, store) },
  })
}

function filledClient(payloads: unknown[], queries: number): QueryClient {
  const client = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
  // A copy per query: distinct objects, as 5,000 fetched responses are (a structured clone would
  // otherwise store a shared object once).
  for (let i = 0; i < queries; i++) client.setQueryData(['webhook', i], structuredClone(payloads[i % payloads.length]), { updatedAt: Date.now() })
  return client
}

window.runPersistBench = async (payloads, queries, method, round) => {
  const dbName = `persist-bench-${method}-${round}`
  await deleteDb(dbName)
  const source = filledClient(payloads, queries)
  await quiet(300)
  let bytes: number | undefined
  let save: { longTaskMs: number; longestGapMs: number; ms: number }
  let restoreMs: number
  let restoredQueries: number
  if (method === 'stowage' || method === 'stowage-plain') {
    const codec = method === 'stowage' ? undefined : { compress: 'never' as const }
    const store = createIdbStore({ dbName })
    const persister = createStowageClientPersister({ store, throttleTime: 0, codec })
    await store.get('open') // the database is open before the clock starts, as for idb-keyval below
    save = await watchMainThread(() => persistQueryClientSave({ queryClient: source, persister }))
    await store.close()
    bytes = await storedEnvelopeBytes(dbName)
    await quiet(300)
    const target = new QueryClient()
    const again = createIdbStore({ dbName })
    const t = performance.now()
    await persistQueryClientRestore({ queryClient: target, persister: createStowageClientPersister({ store: again, codec }) })
    restoreMs = performance.now() - t
    restoredQueries = target.getQueryCache().getAll().length
    await again.close()
  } else {
    const kv = createStore(dbName, 'keyval')
    await get('open', kv)
    const persister = method === 'json' ? idbKeyvalJsonPersister(kv) : idbKeyvalClonePersister(kv)
    save = await watchMainThread(() => persistQueryClientSave({ queryClient: source, persister }))
    if (method === 'json') bytes = new TextEncoder().encode((await get<string>('REACT_QUERY_OFFLINE_CACHE', kv)) as string).length
    await quiet(300)
    const target = new QueryClient()
    const fresh = createStore(dbName, 'keyval')
    const again = method === 'json' ? idbKeyvalJsonPersister(fresh) : idbKeyvalClonePersister(fresh)
    const t = performance.now()
    await persistQueryClientRestore({ queryClient: target, persister: again })
    restoreMs = performance.now() - t
    restoredQueries = target.getQueryCache().getAll().length
  }
  source.clear()
  await deleteDb(dbName)
  return { bytes, saveMs: save.ms, longTaskMs: save.longTaskMs, longestGapMs: save.longestGapMs, restoreMs, restoredQueries }
}
