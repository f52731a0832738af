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

/**
 * The name under which the pages of one persisted thing tell each other of removals
 * (removal-notices.ts): `what` and `key`, in the database the store was created over. With the
 * caller's own store, whose database this cannot see, every page of the origin that persists
 * `what` under `key` is told.
 *
 * @param what - the kind of records (the whole client, or per-query entries).
 * @param key - their key or prefix.
 * @param options - the caller's `store` and `dbName`.
 * @returns the BroadcastChannel's name.
 */
export function noticeName(what: string, key: string, options: { readonly store?: Store; readonly dbName?: string }): string {
  return options.store === undefined ? `${what}:${options.dbName ?? DEFAULT_PERSIST_DB_NAME}:${key}` : `${what}:${key}`
}
