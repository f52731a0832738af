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
//
// Asking for a read is not free either (~30 µs a request in Chromium 156): 5,000 reads asked for
// at once kept the main thread for 150 ms in one task. A transaction takes READS_PER_TASK reads;
// the reads asked for past them wait for a later task (and a transaction of their own), unless a
// write of their keys begins first: then they are asked for at once, before it, and do not see it.
import { inLaterTask } from './later-task.js'
import { requested } from './raw-requests.js'
import type { Row } from './records.js'

/** Reads asked for of one transaction; the next ones wait for a later task. */
export const READS_PER_TASK = 128

// Writes begun by the stores of this realm; a shared transaction made before the latest is not
// reused. Kept on the global object, under a registered symbol, so that every copy of this package
// in the realm (an ESM and a CJS build both bundled, two versions) counts the others' writes too,
// and asks for the reads they keep waiting before its writes. (A copy older than the reads that
// wait, 2026-11-29, counts its writes but does not ask for another copy's waiting reads: those may
// see its write.)
const WRITES = Symbol.for('@stowage/idb:writes')
const counter: { n: number; waiting?: Set<{ askWaiting(keys?: ReadonlySet<string>): void }> } = ((globalThis as Record<symbol, { n: number } | undefined>)[WRITES] ??= { n: 0 })
const waiting = (counter.waiting ??= new Set())

/**
 * Notes a write about to begin (call it before making the read-write transaction): the reads
 * still waiting for a later task are asked for first, those of `keys` when the write touches
 * those keys only (the others read the same before it as after it), else all of them.
 */
export function beginWrite(keys?: readonly string[]): void {
  if (waiting.size > 0) {
    const touched = keys === undefined ? undefined : new Set(keys)
    for (const reads of waiting) reads.askWaiting(touched)
  }
  counter.n++
}

interface Waiting {
  key: string
  resolve: (row: Row | undefined) => void
  reject: (error: unknown) => void
}

/** Rows read through one read-only transaction per task, per database connection. */
export class SharedReads {
  private store: IDBObjectStore | undefined
  private madeAt = -1
  // Reads asked for of `store`; at READS_PER_TASK it is full until a later task.
  private asked = 0
  private full = false
  private readonly queue: Waiting[] = []

  constructor(
    private readonly db: IDBDatabase,
    private readonly name: string,
  ) {}

  /** Reads the row of `key` (undefined when there is none): at once, or in a later task when this one has asked for READS_PER_TASK. */
  get(key: string): Promise<Row | undefined> {
    if (!this.full) return this.ask(key)
    return new Promise((resolve, reject) => {
      waiting.add(this)
      this.queue.push({ key, resolve, reject })
    })
  }

  /** Reads the rows of `keys` in one transaction (one snapshot), however many they are. */
  getAll(keys: readonly string[]): Promise<Array<Row | undefined>> {
    if (keys.length === 0) return Promise.resolve([])
    const first = this.ask(keys[0]!)
    const store = this.store!
    return Promise.all([first, ...keys.slice(1).map((key) => this.askOf(store, key))])
  }

  /** Asks at once, in a new transaction, for the reads waiting (of `keys` only, when given): a write of them is about to begin, which they must not see. */
  askWaiting(keys?: ReadonlySet<string>): void {
    if (keys === undefined) {
      waiting.delete(this)
      this.askFor(this.queue.splice(0))
      return
    }
    const now = this.queue.filter((read) => keys.has(read.key))
    if (now.length === 0) return
    const later = this.queue.filter((read) => !keys.has(read.key))
    this.queue.splice(0, this.queue.length, ...later)
    if (later.length === 0) waiting.delete(this)
    this.askFor(now)
  }

  // A later task: a new transaction for the reads that waited, READS_PER_TASK of them at most.
  private nextTask = (): void => {
    this.full = false
    const taken = this.queue.splice(0, READS_PER_TASK)
    if (this.queue.length === 0) waiting.delete(this)
    this.askFor(taken)
  }

  // Asks for reads that waited, in a new transaction. When none can be made (the connection has
  // closed), they fail with the error, and so do the reads still waiting behind them.
  private askFor(reads: Waiting[]): void {
    if (reads.length === 0) return
    let store: IDBObjectStore
    try {
      store = this.made()
    } catch (e) {
      waiting.delete(this)
      this.full = false
      for (const { reject } of [...reads, ...this.queue.splice(0)]) reject(e)
      return
    }
    for (const { key, resolve, reject } of reads) {
      try {
        this.askOf(store, key).then(resolve, reject)
      } catch (e) {
        reject(e)
      }
    }
  }

  // Asks for `key` in this task's transaction, or a new one when that has ended or a write began since.
  private ask(key: string): Promise<Row | undefined> {
    if (this.store !== undefined && this.madeAt === counter.n) {
      try {
        return this.askOf(this.store, key)
      } catch {
        // The transaction has ended (its task is over): a new one below.
      }
    }
    return this.askOf(this.made(), key)
  }

  private askOf(store: IDBObjectStore, key: string): Promise<Row | undefined> {
    const request = store.get(key) as IDBRequest<Row | undefined>
    if (store === this.store && ++this.asked === READS_PER_TASK) {
      this.full = true
      inLaterTask(this.nextTask)
    }
    return requested(request)
  }

  private made(): IDBObjectStore {
    this.store = this.db.transaction(this.name, 'readonly').objectStore(this.name)
    this.madeAt = counter.n
    this.asked = 0
    return this.store
  }
}
