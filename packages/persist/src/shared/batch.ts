// A Store's batch abilities are optional: use them when present, else one call per key.
import type { Store, StoreEntry } from '@stowage/core'

/** The values under `keys`, in order (`undefined` for the missing ones), in one batch where the store can. */
export function getMany(store: Store, keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
  return store.getMany ? store.getMany(keys) : Promise.all(keys.map((key) => store.get(key)))
}

/** Stores one entry, with its time to live. */
export function setOne(store: Store, { key, value, ttl }: StoreEntry): Promise<void> {
  return store.set(key, value, ttl === undefined ? undefined : { ttl })
}

/** Stores `entries`, in one batch where the store can. */
export async function setMany(store: Store, entries: readonly StoreEntry[]): Promise<void> {
  if (entries.length === 0) return
  if (store.setMany) return store.setMany(entries)
  for (const entry of entries) await setOne(store, entry)
}

/** Removes `keys`, in one batch where the store can. */
export async function deleteMany(store: Store, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return
  if (store.deleteMany) {
    await store.deleteMany(keys)
    return
  }
  for (const key of keys) await store.delete(key)
}
