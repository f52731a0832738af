// A change of keys against what is in flight in this process. Before the store takes a write,
// delete or clear, the claims on its keys are superseded (see Claims) and later callers stop joining
// loads that began before it; a write takes a claim of its own. After, the same again (reads and
// loads that began while the store took it may hold what it replaced), and the local tier mirrors
// the change: a written entry is kept only if no other change of its key came meanwhile. Telling
// other processes is the cache's.
import type { Claim, Claims } from './claims.js'
import type { LocalEntry, LocalTier } from './local-tier.js'
import type { SingleFlight } from './single-flight.js'

/** One key a change landed on: a written entry's copy to keep (`kept`, its envelope's `size` and `ttl`) and the write's claim. */
export interface Landed {
  readonly full: string
  readonly kept?: LocalEntry
  readonly size?: number
  readonly ttl?: number
  readonly own?: Claim
}

export class Changes {
  constructor(
    private readonly claims: Claims,
    private readonly flight: SingleFlight,
    private readonly local: LocalTier | undefined,
  ) {}

  /** A write or delete of `fulls` is on its way; with `clear`, a clear of every key under each. */
  starting(fulls: readonly string[], clear = false): void {
    for (const full of fulls) {
      if (clear) {
        this.claims.supersedeAll(full)
        this.flight.forgetAll(full)
      } else {
        this.claims.supersede(full)
        this.flight.forget(full)
      }
    }
  }

  /** The store is about to take a write of `full`: earlier claims end, the write takes its own. */
  writing(full: string): Claim {
    this.claims.supersede(full)
    return this.claims.begin(full)
  }

  /** The store failed to take the write: its claim ends. */
  failed(own: Claim): void {
    this.claims.end(own)
  }

  /** The store took the change. */
  landed(op: 'set' | 'delete' | 'clear', keys: readonly Landed[]): void {
    for (const { full, kept, size, ttl, own } of keys) {
      const holds = own === undefined || this.claims.end(own)
      this.starting([full], op === 'clear')
      if (this.local === undefined) continue
      if (op === 'clear') this.local.clear(full)
      else if (op === 'delete' || kept === undefined || !holds) this.local.delete(full)
      else this.local.set(full, kept, size ?? 0, ttl)
    }
  }
}
