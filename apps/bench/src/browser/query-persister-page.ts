// Runs inside Chromium (bundled by query-persister-bench.ts): TanStack Query's per-query persister
// (`experimental_createQueryPersister`, one storage entry per query, each restored when the query
// is first fetched) over idb-keyval as TanStack's docs build it (structured clone, and the default
// JSON serializer), against @stowage/persist's `createStowageQueryPersister` over @stowage/idb.
// A save and a restore are separate calls, so that the bench can restore in a new browser over the
// same on-disk profile (a real reload).
import { createIdbStore } from '@stowage/idb'
import { createStowageQueryPersister } from '@stowage/persist/tanstack-query'
import { QueryClient, type QueryFunction } from '@tanstack/query-core'
import { experimental_createQueryPersister, type AsyncStorage, type PersistedQuery } from '@tanstack/query-persist-client-core'
import { createStore, del, get, set } from 'idb-keyval'
import { watchMainThread } from './main-thread.js'

// TanStack's per-query persister reads process.env.NODE_ENV on its error paths.
;(globalThis as { process?: unknown }).process ??= { env: { NODE_ENV: 'production' } }

export type QueryPersisterMethod = 'json' | 'clone' | 'stowage' | 'stowage-deflated'

/** What a save or a restore reports. */
export interface QueryPersisterSample {
  /** From the first fetch to the last entry written (save), or to the last query's data restored (restore). */
  ms: number
  /** The longest main-thread task after the burst's task (see watchMainThread). */
  longestTaskMs: number
  /** The synchronous part of the page's fetchQuery calls (TanStack's own work, and what the persister does at once in it). */
  burstMs: number
  /** The whole task of the burst: its synchronous part and the promise callbacks run at its end, until the next task began. */
  burstTaskMs: number
  /** Queries written or restored. */
  queries: number
}

declare global {
  interface Window {
    runQueryPersisterSave(values: unknown[], queries: number, method: QueryPersisterMethod, dbName: string): Promise<QueryPersisterSample>
    runQueryPersisterRestore(queries: number, method: QueryPersisterMethod, dbName: string): Promise<QueryPersisterSample>
  }
}

// A persister of `method`, and a hook called with the key of each entry it writes.
function persisterOf(method: QueryPersisterMethod, dbName: string, written: (key: string) => void) {
  if (method === 'stowage' || method === 'stowage-deflated') {
    const store = createIdbStore({ dbName })
    const [setOne, setSome] = [store.set.bind(store), store.setMany.bind(store)]
    store.set = async (...args) => {
      await setOne(...args)
      written(args[0])
    }
    store.setMany = async (entries) => {
      await setSome(entries)
      for (const { key } of entries) written(key)
    }
    // 'stowage': the persister's defaults (in a browser, no deflate under 256 KiB); 'stowage-deflated':
    // every entry of 1 KiB and more deflated (PERSIST_CODEC_OPTIONS, its default before 2026-11-29).
    return createStowageQueryPersister({ store, ...(method === 'stowage-deflated' ? { codec: { compressThreshold: 1024 } } : {}) }).persisterFn
  }
  // TanStack's docs ("Persisting queries" with IndexedDB): idb-keyval as the storage, each query
  // kept as a structured clone (serialize and deserialize pass it through); 'json' keeps the
  // persister's default serializer (JSON strings).
  const kv = createStore(dbName, 'keyval')
  const storage: AsyncStorage<unknown> = {
    getItem: (key) => get(key, kv),
    setItem: async (key, value) => {
      await set(key, value, kv)
      written(key)
    },
    removeItem: (key) => del(key, kv),
  }
  const identity = method === 'clone' ? { serialize: (q: PersistedQuery) => q, deserialize: (q: unknown) => q as PersistedQuery } : {}
  return experimental_createQueryPersister<unknown>({ storage, ...identity }).persisterFn
}

const keyOf = (i: number) => ['query', i]

// Resolves in the next task: the current one, and the promise callbacks at its end, are over.
const nextTask = () =>
  new Promise<void>((resolve) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      resolve()
    }
    channel.port2.postMessage(null)
  })

window.runQueryPersisterSave = async (values, queries, method, dbName) => {
  // Keys written (the store's set goes through its setMany: an entry may be told of twice).
  const keys = new Set<string>()
  let allWritten = () => {}
  const done = new Promise<void>((resolve) => (allWritten = resolve))
  const persister = persisterOf(method, dbName, (key) => {
    keys.add(key)
    if (keys.size === queries) allWritten()
  })
  const client = new QueryClient({ defaultOptions: { queries: { persister, staleTime: Infinity, gcTime: Infinity, retry: false } } })
  // Every query fetched at once, as components mounting together fetch them: one task.
  const t = performance.now()
  const fetched = Promise.all(Array.from({ length: queries }, (_, i) => client.fetchQuery({ queryKey: keyOf(i), queryFn: () => values[i % values.length] })))
  const burstMs = performance.now() - t
  await nextTask()
  const burstTaskMs = performance.now() - t
  const { ms, longestTaskMs } = await watchMainThread(async () => {
    await fetched
    await done
  })
  return { ms: burstTaskMs + ms, longestTaskMs, burstMs, burstTaskMs, queries: keys.size }
}

window.runQueryPersisterRestore = async (queries, method, dbName) => {
  const persister = persisterOf(method, dbName, () => {})
  const client = new QueryClient({ defaultOptions: { queries: { persister, staleTime: Infinity, gcTime: Infinity, retry: false } } })
  const fetched: QueryFunction = () => {
    throw new Error('fetched: the query was not restored')
  }
  // Every query asked for at once (a first screen mounting), each restored from its own entry.
  const t = performance.now()
  const restored = Promise.all(Array.from({ length: queries }, (_, i) => client.fetchQuery({ queryKey: keyOf(i), queryFn: fetched })))
  const burstMs = performance.now() - t
  await nextTask()
  const burstTaskMs = performance.now() - t
  const { result, ms, longestTaskMs } = await watchMainThread(() => restored)
  return { ms: burstTaskMs + ms, longestTaskMs, burstMs, burstTaskMs, queries: result.filter((data) => data !== undefined).length }
}
