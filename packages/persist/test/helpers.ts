import { createIdbStore, type IdbStore } from '@stowage/idb'
import type { Store, StoreEntry } from '@stowage/core'

/** A database name no other test uses. */
export const dbName = () => `persist-test-${Math.random().toString(36).slice(2)}`

/** Rich query data: what a JSON persister would turn into strings and plain objects. */
export const richData = (i = 1) => ({
  id: BigInt(i) * 10_000_000_000_000_000n,
  createdAt: new Date(1_700_000_000_000 + i),
  tags: new Set(['a', 'b']),
  byUser: new Map<string, number>([
    ['ada', i],
    ['grace', i + 1],
  ]),
  bytes: new Uint8Array([i, 2, 3]),
})

/** An IndexedDB store that records every batch written and every key deleted. */
export function recordingStore(name = dbName(), options: { maxBytes?: number } = {}): Store & { inner: IdbStore; writes: string[][]; deletes: string[][] } {
  const inner = createIdbStore({ dbName: name, ...options })
  const writes: string[][] = []
  const deletes: string[][] = []
  return {
    name: 'recording',
    inner,
    writes,
    deletes,
    get: (key) => inner.get(key),
    set: (key, value, o) => inner.set(key, value, o),
    delete: (key) => inner.delete(key),
    getMany: (keys) => inner.getMany(keys),
    setMany: (entries: readonly StoreEntry[]) => {
      writes.push(entries.map((e) => e.key))
      return inner.setMany(entries)
    },
    deleteMany: (keys: readonly string[]) => {
      deletes.push([...keys])
      return inner.deleteMany(keys)
    },
    clear: (prefix) => inner.clear(prefix),
    keys: (prefix) => inner.keys(prefix),
    close: () => inner.close(),
  }
}

/** Every key of a store under `prefix`. */
export async function keysOf(store: Store, prefix = ''): Promise<string[]> {
  const out: string[] = []
  for await (const key of store.keys!(prefix)) out.push(key)
  return out.sort()
}
