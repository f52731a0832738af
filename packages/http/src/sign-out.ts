// Signing a user out of everything Stowage keeps for them on this browser profile: their entries
// (in the store, IndexedDB, and in the in-process tier of this tab and, through the cache's
// invalidation channel, of every other open tab), and the app state persisted for them.
import { checkOptionNames, StowageError, StowageErrorCode, type Cache } from '@stowage/core'
import { scopedCache } from './scope.js'
import { hintStorage, ValidatorHints, type HintStorage } from './validator-hints.js'

/** Something that holds persisted state: a TanStack persister (`removeClient`), or a function that removes it (a Zustand storage's `removeItem(name)`). */
export type PersistedState = { removeClient(): unknown } | (() => unknown)

/** Options of {@link signOut}. */
export interface SignOutOptions {
  /** The cache the user's entries are in: give it `invalidation: createBroadcastInvalidation(…)` so other tabs drop theirs too. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly cache: Cache<any>
  /** The user's scope (as given to `fetchCached`): only that user's partition is wiped. Defaults to none: the whole cache namespace is wiped. */
  readonly scope?: string
  /** Persisted app state to remove as well (TanStack persisters, Zustand storage removals). Defaults to none. */
  readonly persisted?: readonly PersistedState[]
  /**
   * Where fetchCached remembered validators (its `validatorHints`): those of the namespace this
   * clears (the cache's, or the scope's) are forgotten with its entries. Defaults to `localStorage`
   * where there is one.
   */
  readonly validatorHints?: HintStorage | false
}

/**
 * Wipes what this browser profile keeps for a user: `cache.clear()` of their scope (or of the whole
 * cache without one; and then fetchCached's validator hints for it), which empties the store and
 * every tab's in-process tier, then every piece of `persisted` state, all at once. Every step is tried even when one fails.
 * @throws {StowageError} INVALID_ARGUMENT for a bad scope; STORE_ERROR when a step failed (the
 *   first failure is the cause), after trying them all.
 */
export async function signOut(options: SignOutOptions): Promise<void> {
  // A misspelt `scope` would wipe the whole cache, or leave the user's entries.
  checkOptionNames('signOut', options, ['cache', 'scope', 'persisted', 'validatorHints'] satisfies ReadonlyArray<keyof SignOutOptions>)
  const cache = options.scope === undefined ? options.cache : scopedCache(options.cache, options.scope)
  // A cache made with `writeErrors: 'ignore'` reports a failed clear as an `error` event
  // only and resolves: a sign-out must still fail then, or the user's entries stay unnoticed.
  const clear = async () => {
    let failed: unknown
    const stop = cache.on('error', (event) => {
      if (event.operation === 'clear') failed ??= event.error
    })
    try {
      await cache.clear()
    } finally {
      stop()
    }
    if (failed !== undefined) throw failed
  }
  const steps: Array<() => unknown> = [clear]
  // fetchCached keeps no hints for its `scope` option, but does for a cache handed to it already
  // scoped (scopedCache): what is known of the wiped namespace goes, whichever it is.
  const hints = hintStorage(options.validatorHints)
  if (hints !== undefined) steps.push(() => new ValidatorHints(hints).forgetNamespace(cache.namespace))
  const failures: unknown[] = []
  for (const step of steps) {
    try {
      await step()
    } catch (e) {
      failures.push(e)
    }
  }
  // The persisted state, all at once: persisters of one page tell each other of their removals, and
  // one told while its own removal runs takes it as that removal (told after it, it would stop
  // persisting until the page is reloaded, as for another tab's sign-out).
  const persisted = [...(options.persisted ?? [])]
  const removed = await Promise.allSettled(persisted.map(async (state) => (typeof state === 'function' ? state() : state.removeClient())))
  for (const outcome of removed) if (outcome.status === 'rejected') failures.push(outcome.reason)
  const total = steps.length + persisted.length
  if (failures.length > 0) throw new StowageError(StowageErrorCode.STORE_ERROR, `signing out: ${failures.length} of ${total} steps failed`, { cause: failures[0] })
}
