// Reads issued in one task share one read-only transaction. A page's first screen reads many keys
// at once (components mounting, a per-query persister restoring each query as it is first used),
// and a transaction is most of what one small read costs: in Chromium, after a browser restart,
// 1,000 concurrent gets of 3 kB took 150 ms with a transaction each and 73 ms in one (medians of 5).
//
// A transaction stays usable until the task that made it, and its microtasks, have run; a read
// after that starts a new one. A write of any Stowage store of this page begun since (a set, a
// delete, a clear) also starts a new one, so that a read asked for after a write sees it, as it
// would with a transaction of its own: a read-only transaction made after a read-write one over
// the same records waits for it.
import { requested } from './raw-requests.js'
import type { Row } from './records.js'

// Writes begun by the stores of this realm; a shared transaction made before the latest is not
// reused. Kept on the global object, under a registered symbol, so that every copy of this package
// in the realm (an ESM and a CJS build both bundled, two versions) counts the others' writes too.
const WRITES = Symbol.for('@stowage/idb:writes')
const counter: { n: number } = ((globalThis as Record<symbol, { n: number } | undefined>)[WRITES] ??= { n: 0 })

/** Notes a write about to begin (call it before making the read-write transaction). */
export function beginWrite(): void {
  counter.n++
}

/** Rows read through one read-only transaction per task, per database connection. */
export class SharedReads {
  private store: IDBObjectStore | undefined
  private madeAt = -1

  constructor(
    private readonly db: IDBDatabase,
    private readonly name: string,
  ) {}

  /** Reads the row of `key` (undefined when there is none). */
  get(key: string): Promise<Row | undefined> {
    if (this.store !== undefined && this.madeAt === counter.n) {
      try {
        return requested(this.store.get(key) as IDBRequest<Row | undefined>)
      } catch {
        // The transaction has ended (its task is over): a new one below.
      }
    }
    this.store = this.db.transaction(this.name, 'readonly').objectStore(this.name)
    this.madeAt = counter.n
    return requested(this.store.get(key) as IDBRequest<Row | undefined>)
  }
}
