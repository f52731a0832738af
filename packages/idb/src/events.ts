// The events of the IndexedDB store: the wrapper (idb-store.ts) emits some and the plain store over
// IndexedDB (plain-idb-store.ts) others, so the type lives apart from both.

/** The events of an `IdbStore` and what their listeners receive. */
export interface IdbStoreEvents {
  /** The database is open (expired entries are swept a moment later, off the first reads' path). */
  open: { readonly dbName: string; readonly storeName: string }
  /** The sweep that follows opening has ended: expired entries are gone. */
  swept: { readonly dbName: string; readonly storeName: string }
  /** IndexedDB could not be used; the store now keeps entries in memory. */
  fallback: { readonly reason: string; readonly error: unknown }
  /** The connection was closed (a newer version in another tab, or the browser); the next call reopens it. */
  reopen: { readonly reason: string }
  /** Entries were evicted to stay within `maxBytes` or the browser's quota. */
  evict: { readonly keys: readonly string[]; readonly reason: 'maxBytes' | 'quota' }
}
