// Runs inside Chromium (bundled by persist-profile.ts): Stowage's client persister over
// @stowage/idb, its save and its restore as separate calls, so that each can be profiled alone
// (the client is filled and dehydrated before the save's call, as persist-page.ts does).
import { createStowageClientPersister } from '@stowage/persist/tanstack-query'
import { createIdbStore } from '@stowage/idb'
import { dehydrate, QueryClient } from '@tanstack/query-core'
import type { PersistedClient, Persister } from '@tanstack/query-persist-client-core'

declare global {
  interface Window {
    prepareSave(values: unknown[], queries: number): Promise<void>
    save(): Promise<{ ms: number }>
    restore(): Promise<{ ms: number; queries: number }>
  }
}

const DB = 'persist-profile'
let client: PersistedClient | undefined
let persister: Persister | undefined

window.prepareSave = async (values, queries) => {
  const source = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
  for (let i = 0; i < queries; i++) source.setQueryData(['query', i], structuredClone(values[i % values.length]), { updatedAt: Date.now() })
  client = { timestamp: Date.now(), buster: '', clientState: dehydrate(source) }
  const store = createIdbStore({ dbName: DB })
  await store.get('open') // the database is open before the save, as in persist-bench.ts
  persister = createStowageClientPersister({ store, throttleTime: 0 })
  await new Promise((r) => setTimeout(r, 300))
}

window.save = async () => {
  const t = performance.now()
  await persister!.persistClient(client!)
  return { ms: performance.now() - t }
}

// Opening the database is part of the restore, as in persist-bench.ts.
window.restore = async () => {
  const t = performance.now()
  const restored = await createStowageClientPersister({ store: createIdbStore({ dbName: DB }) }).restoreClient()
  return { ms: performance.now() - t, queries: restored?.clientState.queries.length ?? 0 }
}
