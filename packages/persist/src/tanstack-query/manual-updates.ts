// `persistManualUpdates`: TanStack's per-query persister writes a query only after its queryFn
// ran, so `setQueryData` is watched here. Encoding inside the cache's notification would run in
// the caller's task (5,000 `setQueryData` calls: one 2 s task), so the watcher only notes which
// queries changed; their latest state is encoded later, in slices, and written in batches.
import type { Store, StoreEntry } from '@stowage/core'
import type { Query, QueryClient, QueryState } from '@tanstack/query-core'
import { deleteMany, setMany } from '../shared/batch.js'
import { yieldToMain } from '../shared/yield-to-main.js'

/** What the watcher needs from its persister. */
export interface ManualUpdates {
  readonly queryClient: QueryClient
  readonly store: Store
  /** Whether the persister keeps `query` after this `setQueryData` (`before`: its state before it, when the watcher saw it). */
  accepts(query: Query, before: QueryState | undefined): boolean
  /** The store key of a query. */
  keyOf(query: Query): string
  /** The query as stored bytes. */
  encode(query: Query): Uint8Array
  /** The entries' time to live, in ms, or `undefined`. */
  readonly ttl: number | undefined
  readonly sliceMs: number
  /** Told the keys of each batch once its write ended (landed, or some of them before a failure). */
  written(keys: readonly string[]): void
  onError(error: unknown): void
}

/** A running watcher: see {@link watchManualUpdates}. */
export interface ManualUpdatesWatcher {
  /** Stops watching; changes noted before it are still written. */
  stop(): void
  /** Drops every change noted and not yet written; resolves once a write under way has ended. */
  discard(): Promise<void>
}

/**
 * Watches `setQueryData` on the queries a persister keeps and writes their latest state in the
 * background: encoded in slices of `sliceMs`, one batch written per slice.
 *
 * @param updates - the client, the store and how to encode.
 * @returns the watcher.
 */
export function watchManualUpdates(updates: ManualUpdates): ManualUpdatesWatcher {
  const pending = new Map<string, Query>()
  let draining: Promise<void> | undefined
  // Bumped by discard(): a batch encoded before it is not written.
  let generation = 0

  const drain = async () => {
    let batch: StoreEntry[] = []
    let batchOf = generation
    let start = performance.now()
    const write = async () => {
      const entries = batch
      batch = []
      if (batchOf === generation) {
        // The keys are reported however the batch ended: a store without setMany writes one key at
        // a time, and some may have landed before one failed.
        await setMany(updates.store, entries).catch((e: unknown) => updates.onError(e))
        const keys = entries.map((entry) => entry.key)
        updates.written(keys)
        // Discarded while it was written (a removal began, here or in another page): the batch
        // may have landed after the removal's delete, so it goes too.
        if (batchOf !== generation) await deleteMany(updates.store, keys).catch((e: unknown) => updates.onError(e))
      }
      batchOf = generation
    }
    while (pending.size > 0) {
      const [hash, query] = pending.entries().next().value as [string, Query]
      pending.delete(hash)
      try {
        batch.push({ key: updates.keyOf(query), value: updates.encode(query), ttl: updates.ttl })
      } catch (e) {
        updates.onError(e)
      }
      if (performance.now() - start >= updates.sliceMs) {
        await write()
        await yieldToMain()
        start = performance.now()
      }
    }
    await write()
  }
  const schedule = () => {
    draining = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(drain)
      .finally(() => {
        draining = undefined
        if (pending.size > 0) schedule()
      })
  }

  // Each query's last state the watcher saw: what a setQueryData replaced.
  const seen = new WeakMap<Query, QueryState>()
  const stop = updates.queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' && event.type !== 'added') return
    const before = seen.get(event.query)
    seen.set(event.query, event.query.state)
    if (event.type !== 'updated' || event.action.type !== 'success' || !event.action.manual) return
    if (!updates.accepts(event.query, before)) return
    pending.set(event.query.queryHash, event.query)
    if (draining === undefined) schedule()
  })
  return {
    stop,
    async discard() {
      generation++
      pending.clear()
      await draining
    },
  }
}
