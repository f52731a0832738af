// Which operations still have the right to write what they found or loaded. A read of the store, a
// getOrSet loader, an acceptBytes or a write each hold a claim on their key while they wait; a write,
// delete or clear of that key (here or, through the invalidation channel, in another process) that
// starts or ends meanwhile supersedes the claim, and the operation then leaves its result out of
// the store and the in-process tier: a result that began before a change never lands after it.
// Only open claims are kept, so the book is as large as the operations in flight.
import type { CacheClaim } from './cache-types.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'

/** One operation's claim on a full store key. */
export interface Claim {
  readonly key: string
  /** A write, delete or clear of the key came after the claim began. */
  superseded: boolean
}

export class Claims {
  private readonly open = new Map<string, Set<Claim>>()

  /** Opens a claim on `key`; give it back with {@link end}. */
  begin(key: string): Claim {
    const claim: Claim = { key, superseded: false }
    let set = this.open.get(key)
    if (set === undefined) this.open.set(key, (set = new Set()))
    set.add(claim)
    return claim
  }

  /** Closes a claim. @returns whether it still holds (nothing superseded it). */
  end(claim: Claim): boolean {
    const set = this.open.get(claim.key)
    if (set !== undefined && set.delete(claim) && set.size === 0) this.open.delete(claim.key)
    return !claim.superseded
  }

  /** A write or delete of `key`: every open claim on it loses its right. */
  supersede(key: string): void {
    const set = this.open.get(key)
    if (set === undefined) return
    for (const claim of set) claim.superseded = true
    this.open.delete(key)
  }

  /** A clear of every key under `prefix` (`''`: all of them). */
  supersedeAll(prefix: string): void {
    for (const key of [...this.open.keys()]) if (key.startsWith(prefix)) this.supersede(key)
  }
}

// The claims behind the handles `cache.claim(key)` gave out.
const handles = new WeakMap<CacheClaim, Claim>()

/** A claim on `full` (the store key of `key`) as the public API hands it out. */
export function claimHandle(claims: Claims, key: string, full: string): CacheClaim {
  const claim = claims.begin(full)
  const handle: CacheClaim = {
    key,
    get superseded() {
      return claim.superseded
    },
    end: () => void claims.end(claim),
  }
  handles.set(handle, claim)
  return handle
}

/**
 * The claim behind a handle, which must be on `full`.
 * @throws {StowageError} INVALID_ARGUMENT for a handle this cache did not give out for that key.
 */
export function claimOf(handle: CacheClaim, full: string): Claim {
  const claim = handles.get(handle)
  if (claim === undefined || claim.key !== full) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'the claim was not taken with claim(key) on this key of this cache')
  return claim
}
