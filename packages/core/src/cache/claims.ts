// Which operations still have the right to write what they found or loaded. A read of the store, a
// getOrSet loader, an acceptBytes or a write each hold a claim on their key while they wait; a write,
// delete or clear of that key (here or, through the invalidation channel, in another process) that
// starts or ends meanwhile supersedes the claim, and the operation then leaves its result out of
// the store and the in-process tier: a result that began before a change never lands after it.
// Only open claims are kept, so the book is as large as the operations in flight.
import type { CacheClaim } from './cache-types.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'

// The claims open on one key: how many, and how many changes of the key superseded them. A change
// counts up `changes` and forgets the record, so that claims begun after it start afresh.
interface KeyClaims {
  open: number
  changes: number
}

/** One operation's claim on a full store key. */
export class Claim {
  // Set when the claim ends: whether a change had superseded it by then. A change after the end
  // does not reach it (its record may still count other claims that are open).
  private final: boolean | undefined

  constructor(
    readonly key: string,
    /** The book that gave the claim out. */
    readonly book: Claims,
    private readonly on: KeyClaims,
    private readonly seen: number,
  ) {}

  /** A write, delete or clear of the key came after the claim began, and before it ended. */
  get superseded(): boolean {
    return this.final ?? this.on.changes !== this.seen
  }

  /** Ends the claim; false when it had ended already (a second end changes nothing). */
  close(): boolean {
    if (this.final !== undefined) return false
    this.final = this.on.changes !== this.seen
    this.on.open--
    return true
  }

  /** Whether no claim is open on the claim's record any more. */
  idle(): boolean {
    return this.on.open === 0
  }
}

export class Claims {
  // A count per key rather than a set of claims: a read takes a claim or two, and a Set per key
  // cost more than the rest of a claim (a Cache read through Redis at N = 1, issue 25).
  private readonly open = new Map<string, KeyClaims>()

  /** Opens a claim on `key`; give it back with {@link end}. */
  begin(key: string): Claim {
    let on = this.open.get(key)
    if (on === undefined) this.open.set(key, (on = { open: 0, changes: 0 }))
    on.open++
    return new Claim(key, this, on, on.changes)
  }

  /**
   * Closes a claim this book gave out (any other is left as it is).
   * @returns whether it still holds (nothing superseded it while it was open).
   */
  end(claim: Claim): boolean {
    // The last claim on a key forgets its record, unless a change forgot it already (and a record
    // begun since then is another one): a claim no change superseded still counts in the record
    // the book holds for its key.
    if (claim.book === this && claim.close() && claim.idle() && !claim.superseded) this.open.delete(claim.key)
    return !claim.superseded
  }

  /** A write or delete of `key`: every open claim on it loses its right. */
  supersede(key: string): void {
    const on = this.open.get(key)
    if (on === undefined) return
    on.changes++
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
 * The claim behind a handle, which must be on `full` and from `claims` (the book of the cache it is
 * used with: a claim of another cache would end in the wrong book, and could not be superseded here).
 * @throws {StowageError} INVALID_ARGUMENT for a handle this cache did not give out for that key.
 */
export function claimOf(handle: CacheClaim, full: string, claims: Claims): Claim {
  const claim = handles.get(handle)
  if (claim === undefined || claim.key !== full || claim.book !== claims) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'the claim was not taken with claim(key) on this key of this cache')
  return claim
}
