// Writes asked for one at a time (TanStack's per-query persister writes each query on its own) go
// to the store together: those asked for in one task are written in one batch, in a later task.
// IndexedDB pays per transaction: each write its own is what makes a burst of them slow.
import type { Store, StoreEntry } from '@stowage/core'
import { setMany } from './batch.js'
import { yieldToMain } from './yield-to-main.js'

/** Writes gathered into batches: see {@link writeBatches}. */
export interface WriteBatches {
  /** Writes `entry` with the others asked for in this task; resolves once their batch has landed, rejects with its error. */
  set(entry: StoreEntry): Promise<void>
}

/**
 * {@link WriteBatches} over `store` (its `setMany` where it has one).
 *
 * @param store - where the entries go.
 * @returns the batches.
 */
export function writeBatches(store: Store): WriteBatches {
  let batch: Array<{ entry: StoreEntry; landed: () => void; failed: (e: unknown) => void }> | undefined
  const write = async () => {
    await yieldToMain()
    const writes = batch!
    batch = undefined
    // One key written twice in a batch: the later value, as one write after the other would leave.
    const latest = new Map(writes.map(({ entry }) => [entry.key, entry]))
    const entries = [...latest.values()]
    try {
      // A batch of one is a plain set.
      if (entries.length === 1) await store.set(entries[0]!.key, entries[0]!.value, entries[0]!.ttl === undefined ? undefined : { ttl: entries[0]!.ttl })
      else await setMany(store, entries)
      for (const { landed } of writes) landed()
    } catch (e) {
      for (const { failed } of writes) failed(e)
    }
  }
  return {
    set: (entry) =>
      new Promise((landed, failed) => {
        if (batch === undefined) {
          batch = []
          void write()
        }
        batch.push({ entry, landed, failed })
      }),
  }
}
