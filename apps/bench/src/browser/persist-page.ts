// Runs inside Chromium (bundled by persist-bench.ts): a TanStack Query client of 5,000 queries of
// real data saved and restored by TanStack's own persisters over idb-keyval and by Stowage's
// whole-client persister over @stowage/idb. A save and a restore are separate calls, so that the
// bench can run them in one page, or in two browsers over one on-disk profile (a real reload).
// Each reports its time, the longest main-thread task while it ran, and the bytes handed to
// IndexedDB.
import { createStowageClientPersister } from '@stowage/persist/tanstack-query'
import { createIdbStore } from '@stowage/idb'
import { createAsyncStoragePersister } from '@tanstack/query-async-storage-persister'
import { dehydrate, hydrate, QueryClient } from '@tanstack/query-core'
import type { PersistedClient, Persister } from '@tanstack/query-persist-client-core'
import { createStore, del, get, set } from 'idb-keyval'
import { watchMainThread } from './main-thread.js'

/** What a save reports. */
export interface SaveSample {
  /** TanStack's `dehydrate` of the client, one synchronous task before the persister runs (the same for every persister). */
  dehydrateMs: number
  /** Bytes IndexedDB was given to keep (JSON: the string's UTF-8 length; Stowage: the records), `undefined` where not measurable in the page. */
  bytes: number | undefined
  ms: number
  /** The longest main-thread task: the longer of the browser's `longtask` entries (≥ 50 ms) and the longest gap between turns of a MessageChannel heartbeat. */
  longestTaskMs: number
}

/** What a restore reports. */
export interface RestoreSample {
  /** The persister's `restoreClient` (opening the database included). */
  ms: number
  /** The longest task while `restoreClient` ran. */
  longestTaskMs: number
  /** TanStack's `hydrate` of what was restored, one synchronous task (the same for every persister). */
  hydrateMs: number
  restoredQueries: number
}

export type PersistMethod = 'json' | 'clone' | 'stowage' | 'stowage-plain'

declare global {
  interface Window {
    runPersistSave(values: unknown[], queries: number, method: PersistMethod, dbName: string): Promise<SaveSample>
    runPersistRestore(method: PersistMethod, dbName: string): Promise<RestoreSample>
    deletePersistDb(dbName: string): Promise<void>
  }
}

const openDb = (name: string) =>
  new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name)
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => reject(open.error)
  })
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Sum of the stored records' byte lengths, read straight from IndexedDB. */
async function storedRecordBytes(dbName: string): Promise<number> {
  const db = await openDb(dbName)
  const rows = await new Promise<Array<{ value: ArrayBuffer }>>((resolve, reject) => {
    const req = db.transaction('entries').objectStore('entries').getAll()
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error)
  })
  db.close()
  return rows.reduce((n, r) => n + r.value.byteLength, 0)
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

function filledClient(values: unknown[], queries: number): QueryClient {
  const client = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
  // A copy per query: distinct objects, as 5,000 fetched responses are (a structured clone would
  // otherwise store a shared object once).
  for (let i = 0; i < queries; i++) client.setQueryData(['query', i], structuredClone(values[i % values.length]), { updatedAt: Date.now() })
  return client
}

const stowageCodec = (method: PersistMethod) => (method === 'stowage-plain' ? { compress: 'never' as const } : undefined)

window.deletePersistDb = (name) =>
  new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase(name)
    req.onsuccess = req.onerror = req.onblocked = () => resolve()
  })

// What persistQueryClientSave does, in two steps: TanStack's dehydrate (timed on its own, it is no
// persister's work), then the persister's persistClient (watched).
function dehydrated(source: QueryClient): { client: PersistedClient; ms: number } {
  const t = performance.now()
  const client = { timestamp: Date.now(), buster: '', clientState: dehydrate(source) }
  return { client, ms: performance.now() - t }
}

window.runPersistSave = async (values, queries, method, dbName) => {
  const source = filledClient(values, queries)
  await quiet(300)
  const { client, ms: dehydrateMs } = dehydrated(source)
  await quiet(100)
  let bytes: number | undefined
  let save: { longestTaskMs: number; ms: number }
  if (method === 'stowage' || method === 'stowage-plain') {
    const store = createIdbStore({ dbName })
    const persister = createStowageClientPersister({ store, throttleTime: 0, codec: stowageCodec(method) })
    await store.get('open') // the database is open before the clock starts, as for idb-keyval below
    save = await watchMainThread(() => persister.persistClient(client) as Promise<void>)
    await store.close()
    bytes = await storedRecordBytes(dbName)
  } else {
    const kv = createStore(dbName, 'keyval')
    await get('open', kv)
    const persister = method === 'json' ? idbKeyvalJsonPersister(kv) : idbKeyvalClonePersister(kv)
    save = await watchMainThread(() => persister.persistClient(client) as Promise<void>)
    if (method === 'json') bytes = new TextEncoder().encode((await get<string>('REACT_QUERY_OFFLINE_CACHE', kv)) as string).length
  }
  source.clear()
  return { dehydrateMs, bytes, ms: save.ms, longestTaskMs: save.longestTaskMs }
}

// Opening the database is part of a restore (after a reload nothing is open yet).
window.runPersistRestore = async (method, dbName) => {
  const target = new QueryClient()
  let persister: Persister
  let close = async () => {}
  if (method === 'stowage' || method === 'stowage-plain') {
    const store = createIdbStore({ dbName })
    persister = createStowageClientPersister({ store, codec: stowageCodec(method) })
    close = () => store.close()
  } else {
    const kv = createStore(dbName, 'keyval')
    persister = method === 'json' ? idbKeyvalJsonPersister(kv) : idbKeyvalClonePersister(kv)
  }
  // What persistQueryClientRestore does, in two steps: the persister's restoreClient (watched),
  // then TanStack's hydrate (timed on its own, it is no persister's work).
  const restore = await watchMainThread(() => persister.restoreClient() as Promise<PersistedClient | undefined>)
  await close()
  const t = performance.now()
  if (restore.result) hydrate(target, restore.result.clientState)
  const hydrateMs = performance.now() - t
  const restoredQueries = target.getQueryCache().getAll().length
  target.clear()
  return { ms: restore.ms, longestTaskMs: restore.longestTaskMs, hydrateMs, restoredQueries }
}
