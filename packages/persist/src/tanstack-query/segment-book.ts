// What the whole-client persister knows of the stored client in this page: which segments the
// manifest lists and which queries each holds, what was stored of every query's state (so that a
// segment whose queries are unchanged is never encoded again), and what is left to delete.
import type { Codec, Store, StowageError } from '@stowage/core'
import type { QueryState } from '@tanstack/query-core'

/** What a save compares: a query is encoded again only when one of these changed. */
export interface Written {
  readonly data: unknown
  readonly dataUpdatedAt: number
  readonly errorUpdatedAt: number
  readonly status: QueryState['status']
  readonly isInvalidated: boolean
}

export const fingerprint = ({ data, dataUpdatedAt, errorUpdatedAt, status, isInvalidated }: QueryState): Written => ({ data, dataUpdatedAt, errorUpdatedAt, status, isInvalidated })

export const same = (a: Written, b: QueryState): boolean =>
  a.data === b.data && a.dataUpdatedAt === b.dataUpdatedAt && a.errorUpdatedAt === b.errorUpdatedAt && a.status === b.status && a.isInvalidated === b.isInvalidated

/** One stored query: what it holds, and the segment it is in. */
export interface Held {
  readonly written: Written
  readonly segment: string
}

/** What saving and restoring share: where, how, and how long a slice may run. */
export interface SegmentContext {
  readonly store: Store
  /** Reads the query records of layout 1's segments, and finds the query a segment could not hold (no deflate). */
  readonly recordCodec: Codec
  /** Encodes the segments and the manifest. */
  readonly segmentCodec: Codec
  readonly key: string
  readonly segmentBytes: number
  readonly sliceMs: number
  readonly onError: (error: StowageError) => void
}

/** The stored client as this page knows it. */
export class SegmentBook {
  /** Whether this page has read (or written) the manifest, so that `segments` is what it lists. */
  known = false
  /** The `save` id of that manifest (`undefined`: none was stored). */
  save: string | undefined
  /** Whether this page's first save has looked for records no manifest lists. */
  swept = false
  /** The manifest's segments, in order, with the hashes of the queries each holds. */
  segments = new Map<string, readonly string[]>()
  /** Every stored query by hash. */
  held = new Map<string, Held>()
  /** MessagePack bytes per query in the segments encoded last: how many queries the next segment takes. */
  bytesPerQuery = 0
  /** Segments with a record a restore left out: rewritten by the next save. */
  readonly stale = new Set<string>()
  /** Store keys no manifest will list again: deleted after the next manifest write. */
  readonly garbage = new Set<string>()
  /** Whether this page has read (or written) the removal record, so that `removal` is what it holds. */
  removalKnown = false
  /** The id of the last removal of the stored client this page knows of (`undefined`: none). */
  removal: string | undefined
  /**
   * Whether another page removed the stored client (a sign-out) after this page first looked: this
   * page may hold the signed-out user's queries, and saves nothing more for as long as it lives.
   */
  stopped = false
  /** Whether `onError` has been told that this page stopped saving. */
  stopReported = false
  /** Counts this page's removals: a save that began before one writes no manifest. */
  removals = 0

  /**
   * Notes the removal record found in the store (`undefined`: none).
   * @returns whether this page may still save.
   */
  see(removal: string | undefined): boolean {
    if (!this.removalKnown) {
      this.removalKnown = true
      this.removal = removal
    } else if (removal !== undefined && removal !== this.removal) {
      // Another page's removal. A record that is gone instead (evicted, the site's data cleared)
      // tells of no removal: the id this page knows stays.
      this.stopped = true
    }
    return !this.stopped
  }

  /** Takes what a restore read into `from`; this page's own sizes, sweep and removals stay. */
  adopt(from: SegmentBook): void {
    this.known = from.known
    this.save = from.save
    this.segments = from.segments
    this.held = from.held
    this.stale.clear()
    for (const id of from.stale) this.stale.add(id)
    for (const key of from.garbage) this.garbage.add(key)
    this.see(from.removal)
  }

  /** Forgets everything (after the stored client was removed). */
  reset(): void {
    this.removals++
    this.known = false
    this.save = undefined
    this.segments = new Map()
    this.held = new Map()
    this.stale.clear()
    this.garbage.clear()
  }
}
