// What the lazy IndexedDB store hands each call to once it knows where entries live: the plain
// store over IndexedDB (plain-idb-store.ts), or the memory store after a fallback. Both answer
// every call the same way, so the wrapper never asks which one it has.
import type { MemoryStore, StoreEntry } from '@stowage/core'

export interface Backend {
  readonly kind: 'indexeddb' | 'memory'
  getWithTtl(key: string): Promise<{ value: Uint8Array; ttl: number | undefined } | undefined>
  getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>>
  getManyWithTtl(keys: readonly string[]): Promise<Array<{ value: Uint8Array; ttl: number | undefined } | undefined>>
  setMany(entries: readonly StoreEntry[]): Promise<void>
  deleteMany(keys: readonly string[]): Promise<number>
  clear(prefix: string): Promise<void>
  keys(prefix: string): Promise<string[]> | AsyncIterable<string>
  byteSize(): Promise<number>
  /** Deletes expired entries (the memory store does it on its own timer). */
  sweep(): Promise<void>
  /** Releases the backend; `flush: false` when it must happen at once (pending writes of access times are dropped). */
  close(flush?: boolean): Promise<void>
}

/** The memory store as a backend. */
export function memoryBackend(store: MemoryStore): Backend {
  return {
    kind: 'memory',
    getWithTtl: (key) => store.getWithTtl(key),
    getMany: (keys) => store.getMany(keys),
    getManyWithTtl: (keys) => store.getManyWithTtl(keys),
    setMany: (entries) => store.setMany(entries),
    deleteMany: (keys) => store.deleteMany(keys),
    clear: (prefix) => store.clear(prefix),
    keys: (prefix) => store.keys(prefix),
    byteSize: async () => store.byteSize,
    sweep: async () => {},
    close: () => store.close(),
  }
}
