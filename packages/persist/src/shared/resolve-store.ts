import type { Store } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'

/** Default database of the store each entry point creates when given none. */
export const DEFAULT_PERSIST_DB_NAME = 'stowage-persist'

/**
 * The store to persist into: the caller's, else an IndexedDB store of its own (lazy: nothing
 * touches `indexedDB` until the first read or write, so server-side rendering can import this).
 *
 * @param store - the caller's store, if any.
 * @param dbName - the database of the store created otherwise.
 * @returns a {@link Store}.
 * @throws {StowageError} INVALID_ARGUMENT for an empty `dbName`.
 */
export function resolveStore(store: Store | undefined, dbName: string | undefined): Store {
  return store ?? createIdbStore({ dbName: dbName ?? DEFAULT_PERSIST_DB_NAME })
}
