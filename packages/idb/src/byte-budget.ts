// The byte budget of an IndexedDB store (`maxBytes`): a running total kept in the database itself
// (updated in the same transactions as the entries, so tabs agree), least-recently-used eviction,
// and last-access times written in batches, so that reads stay read-only transactions. Without a
// budget no total is kept and nothing of this runs but the quota eviction.
import type { Db, Row, StoreNames, Tx } from './records.js'
import { beginWrite } from './shared-reads.js'

const BYTES = 'bytes'
// Read access times are written in batches, not on each read.
const TOUCH_DELAY = 1000
// On QuotaExceededError: evict this share of the accounted bytes (at least one entry), then retry once.
const QUOTA_EVICT_SHARE = 0.1

/** The accounting of one open database. */
export class ByteBudget {
  private readonly touched = new Map<string, number>()
  private touchTimer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly db: Db,
    private readonly names: StoreNames,
    /** Bytes kept before least recently used entries go; `undefined`: no budget. */
    readonly maxBytes: number | undefined,
  ) {}

  /** Adds `delta` to the total inside `tx`; returns the new total (0 without a budget). */
  async add(tx: Tx, delta: number): Promise<number> {
    if (this.maxBytes === undefined) return 0
    const meta = tx.objectStore(this.names.meta)
    const total = Math.max(0, (((await meta.get(BYTES)) as number | undefined) ?? 0) + delta)
    await meta.put(total, BYTES)
    return total
  }

  /** Counts the bytes of every live entry (expired ones wait for a sweep). */
  async count(): Promise<number> {
    const tx = this.db.transaction(this.names.entries, 'readonly')
    const now = Date.now()
    let total = 0
    let cursor = await tx.store.openCursor()
    while (cursor) {
      if ((cursor.value as Row).expiresAt > now) total += (cursor.value as Row).size
      cursor = await cursor.continue()
    }
    await tx.done
    return total
  }

  /** Starts the total from a true count (writers without a budget keep none). */
  async recount(): Promise<void> {
    if (this.maxBytes === undefined) return
    await this.db.put(this.names.meta, await this.count(), BYTES)
  }

  /** The bytes accounted: the kept total with a budget, a count without one. */
  async total(): Promise<number> {
    if (this.maxBytes === undefined) return this.count()
    return ((await this.db.get(this.names.meta, BYTES)) as number | undefined) ?? 0
  }

  /**
   * Within a write's transaction: evicts least recently used entries (never those in `keep`) until
   * `total` fits the budget.
   * @returns the evicted keys.
   */
  async evictOver(tx: Tx, total: number, keep: ReadonlySet<string>): Promise<string[]> {
    const evicted: string[] = []
    if (this.maxBytes === undefined || total <= this.maxBytes) return evicted
    let cursor = await tx.objectStore(this.names.entries).index('accessedAt').openCursor()
    let freed = 0
    while (cursor && total - freed > this.maxBytes) {
      const row = cursor.value as Row
      if (!keep.has(row.key)) {
        freed += row.size
        evicted.push(row.key)
        await cursor.delete()
      }
      cursor = await cursor.continue()
    }
    await this.add(tx, -freed)
    return evicted
  }

  /**
   * After a QuotaExceededError: evicts the least recently used tenth of the accounted bytes (at
   * least one entry), in a transaction of its own.
   * @returns the evicted keys.
   */
  async evictForQuota(): Promise<string[]> {
    beginWrite()
    const tx = this.db.transaction([this.names.entries, this.names.meta], 'readwrite') as unknown as Tx
    const total = ((await tx.objectStore(this.names.meta).get(BYTES)) as number | undefined) ?? 0
    const target = Math.max(1, total * QUOTA_EVICT_SHARE)
    const evicted: string[] = []
    let freed = 0
    let cursor = await tx.objectStore(this.names.entries).index('accessedAt').openCursor()
    while (cursor && (freed < target || evicted.length === 0)) {
      freed += (cursor.value as Row).size
      evicted.push((cursor.value as Row).key)
      await cursor.delete()
      cursor = await cursor.continue()
    }
    await this.add(tx, -freed)
    await tx.done
    return evicted
  }

  /** Notes a read of `key`: its access time is written with the next batch (only with a budget). */
  touch(key: string): void {
    if (this.maxBytes === undefined) return
    this.touched.set(key, Date.now())
    this.touchTimer ??= setTimeout(() => {
      this.touchTimer = undefined
      this.flush().catch(() => {})
    }, TOUCH_DELAY)
  }

  /** Writes the pending access times now. */
  async flush(): Promise<void> {
    clearTimeout(this.touchTimer)
    this.touchTimer = undefined
    if (this.touched.size === 0) return
    const touched = [...this.touched]
    this.touched.clear()
    beginWrite()
    const tx = this.db.transaction(this.names.entries, 'readwrite')
    for (const [key, at] of touched) {
      const row = (await tx.store.get(key)) as Row | undefined
      if (row !== undefined && row.accessedAt < at) await tx.store.put({ ...row, accessedAt: at })
    }
    await tx.done
  }
}
