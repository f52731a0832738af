// Stampede protection across processes: before a loader runs, the cache takes a lease on the key
// (in Redis: SET NX PX with a token). One process in a fleet holds it and loads; the others wait
// for its value to appear in the store, polling with backoff, and take the lease themselves once
// it has lapsed (its holder died or hung past the lease time).

import type { StoreFence } from '../stores/store.js'

/**
 * Gives a lease back (only if still its holder's). With `fence`, the cache stores the loaded
 * value under that fence (`Store.set`'s `fence` option): a holder whose lease lapsed while it
 * loaded cannot overwrite the value of the holder that came after it.
 */
export type LeaseRelease = (() => Promise<void>) & { readonly fence?: StoreFence }

/**
 * A lease on a key shared by every process of a fleet (`createRedisLease` in `@stowage/redis`).
 * Give the same one to `createCache({ lease })` in each process.
 */
export interface LoadLease {
  /**
   * Takes the lease on `key` for `ms` milliseconds if nobody holds it. Resolves a function that
   * gives it back (only if still ours), or `undefined` when another holder has it.
   */
  acquire(key: string, ms: number): Promise<LeaseRelease | undefined>
}

/** Default of {@link CacheOptions.leaseTime}. */
export const DEFAULT_LEASE_TIME = 10_000

const FIRST_WAIT = 10
const LONGEST_WAIT = 250

/** What {@link underLease} found: the lease (to give back after loading), or a value stored meanwhile. */
export type LeaseOutcome<T> = { readonly release: LeaseRelease | undefined } | { readonly found: T }

/**
 * Waits for the lease on `key`, or for `stored()` to find a value another process wrote under
 * it. `stored` is read once more after the lease is taken: the value may have landed just before.
 * A lease that cannot be reached (the store is down) is no lease: the caller loads alone. Gives up
 * waiting after twice the lease time and loads without it.
 */
export async function underLease<T>(lease: LoadLease, key: string, ms: number, stored: () => Promise<T | undefined>): Promise<LeaseOutcome<T>> {
  const giveUp = Date.now() + 2 * ms
  let wait = FIRST_WAIT
  for (;;) {
    let release: LeaseRelease | undefined
    try {
      release = await lease.acquire(key, ms)
    } catch {
      return { release: undefined }
    }
    if (release !== undefined) {
      const found = await stored().catch(() => undefined)
      if (found === undefined) return { release }
      await release().catch(() => {})
      return { found }
    }
    await new Promise((resolve) => setTimeout(resolve, wait))
    wait = Math.min(wait * 2, LONGEST_WAIT)
    const found = await stored().catch(() => undefined)
    if (found !== undefined) return { found }
    if (Date.now() > giveUp) return { release: undefined }
  }
}
