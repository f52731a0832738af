// Writes asked for one at a time (TanStack's per-query persister writes each query on its own) go
// to the store together: those asked for in one task are written in one batch, in a later task.
// IndexedDB pays per transaction: each write its own is what makes a burst of them slow. A batch
// goes to the store once the one before it has landed (IndexedDB runs writes to one store one
// after another anyway): batches that waited together, for a database still opening, would
// otherwise all be put in one task (124 ms for a 5,000-query save in Chromium 156). A store whose
// write never settles therefore holds every later batch: the Store contract asks each call to
// settle (IndexedDB's transactions complete or abort; the Redis store has command deadlines).
import type { Store, StoreEntry } from '@stowage/core'
import { setMany, setOne } from './batch.js'
import { yieldToMain } from './yield-to-main.js'

/** Writes gathered into batches: see {@link writeBatches}. */
export interface WriteBatches {
  /** Writes `entry` with the others asked for in this task; resolves once their batch has landed, rejects with its error. */
  set(entry: StoreEntry): Promise<void>
  /**
   * Resolves once every write asked for so far (of `key` only, when given) has landed or failed:
   * what reads, lists or deletes after a write waits for it, as it would for a write of its own.
   */
  settled(key?: string): Promise<void>
}

/**
 * {@link WriteBatches} over `store` (its `setMany` where it has one).
 *
 * @param store - where the entries go.
 * @returns the batches.
 */
export function writeBatches(store: Store): WriteBatches {
  type Write = { readonly entry: StoreEntry; landed(): void; failed(e: unknown): void }
  // The batch still taking writes (until its task ends), and when it will have settled.
  let open: { readonly writes: Write[]; readonly done: Promise<void> } | undefined
  // The latest batch holding each key, while it has not settled.
  const byKey = new Map<string, Promise<void>>()
  // The latest batch: the next one waits for it, so once it has settled, every one before it has.
  let last: Promise<void> = Promise.resolve()
  const write = async (writes: Write[], after: Promise<void>) => {
    await yieldToMain()
    open = undefined
    await after
    // One key written twice in a batch: the later value, as one write after the other would leave.
    const entries = [...new Map(writes.map(({ entry }) => [entry.key, entry])).values()]
    let failures: Map<string, unknown> | undefined
    try {
      // A batch of one is a plain set.
      if (entries.length === 1) await setOne(store, entries[0]!)
      else await setMany(store, entries)
    } catch (e) {
      failures = new Map()
      if (entries.length === 1) failures.set(entries[0]!.key, e)
      // One entry the store refuses (larger than its maxBytes, not cloneable) fails the whole
      // batch: each again on its own, so that only it fails, as without batches.
      else for (const entry of entries) await setOne(store, entry).catch((again: unknown) => failures!.set(entry.key, again))
    }
    for (const { entry, landed, failed } of writes) {
      if (failures?.has(entry.key)) failed(failures.get(entry.key))
      else landed()
    }
  }
  const begin = () => {
    const writes: Write[] = []
    const done = write(writes, last).catch(() => {})
    last = done
    void done.then(() => {
      for (const { entry } of writes) if (byKey.get(entry.key) === done) byKey.delete(entry.key)
    })
    return { writes, done }
  }
  return {
    set: (entry) =>
      new Promise((landed, failed) => {
        const batch = (open ??= begin())
        batch.writes.push({ entry, landed, failed })
        byKey.set(entry.key, batch.done)
      }),
    settled: async (key) => {
      await (key === undefined ? last : byKey.get(key))
    },
  }
}
