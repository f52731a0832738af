// The store over one open IndexedDB database: records with exact bytes, expiry and last access;
// batches in one transaction; the byte budget (byte-budget.ts) kept in the same transactions.
// Opening, reopening and the fallback to memory are the lazy wrapper's (idb-store.ts).
import { StowageError, StowageErrorCode, type Emitter, type StoreEntry } from '@stowage/core'
import { unwrap } from 'idb'
import { ByteBudget } from './byte-budget.js'
import { committed } from './raw-requests.js'
import { isQuotaError, run, storeError, type Db, type Row, type StoreNames, type Tx } from './records.js'
import { beginWrite, SharedReads } from './shared-reads.js'
import type { Backend } from './backend.js'
import type { IdbStoreEvents } from './events.js'

/** The value's own bytes as an exact-length ArrayBuffer (a view's buffer may hold much more). */
function exactBuffer(value: Uint8Array): ArrayBuffer {
  return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer
    ? value.buffer
    : // A copy (new Uint8Array, not slice(): a Node Buffer's slice() is a view of the same memory).
      new Uint8Array(value).buffer
}

/** The store's operations over an open database; arguments are checked by the wrapper. */
export class PlainIdbStore implements Backend {
  readonly kind = 'indexeddb'
  private readonly budget: ByteBudget
  private readonly reads: SharedReads

  constructor(
    private readonly db: Db,
    private readonly names: StoreNames,
    maxBytes: number | undefined,
    private readonly events: Emitter<IdbStoreEvents>,
  ) {
    this.budget = new ByteBudget(db, names, maxBytes)
    this.reads = new SharedReads(unwrap(db), names.entries)
  }

  /** Whether the store keeps a byte total, which must be counted before the first write. */
  get budgeted(): boolean {
    return this.budget.maxBytes !== undefined
  }

  /** Prepares a newly opened database with a byte budget: expired entries go, the byte total is counted afresh. */
  async prepare(): Promise<void> {
    await this.sweep().catch(() => {})
    await this.budget.recount().catch(() => {})
  }

  // A promise chain, not an async function: a first screen asks for thousands at once.
  getWithTtl(key: string): Promise<{ value: Uint8Array; ttl: number | undefined } | undefined> {
    let row: Promise<Row | undefined>
    try {
      row = this.reads.get(key)
    } catch (e) {
      return Promise.reject(storeError('get', e))
    }
    return row.then(
      (found) => this.withTtl(found),
      (e: unknown) => {
        throw storeError('get', e)
      },
    )
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    const rows = await run('getMany', () => this.reads.getAll(keys))
    return rows.map((row) => this.live(row))
  }

  async getManyWithTtl(keys: readonly string[]): Promise<Array<{ value: Uint8Array; ttl: number | undefined } | undefined>> {
    const rows = await run('getMany', () => this.reads.getAll(keys))
    return rows.map((row) => this.withTtl(row))
  }

  // A row's live value with what is left of its TTL.
  private withTtl(found: Row | undefined): { value: Uint8Array; ttl: number | undefined } | undefined {
    const value = this.live(found)
    if (value === undefined) return undefined
    const { expiresAt } = found as Row
    return { value, ttl: expiresAt === Infinity ? undefined : Math.max(1, expiresAt - Date.now()) }
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    const now = Date.now()
    const rows: Row[] = entries.map(({ key, value, ttl }) => ({
      key,
      value: exactBuffer(value),
      size: value.byteLength + key.length * 2,
      expiresAt: ttl === undefined ? Infinity : now + ttl,
      accessedAt: now,
    }))
    const { maxBytes } = this.budget
    const too = maxBytes === undefined ? undefined : rows.find((r) => r.size > maxBytes)
    if (too) throw new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `an entry of ${too.size} bytes does not fit in maxBytes (${maxBytes})`)
    try {
      await this.write(rows)
    } catch (e) {
      if (!isQuotaError(e)) throw storeError('write', e)
      // The browser's quota: make room from the least recently used entries, then try once more.
      const evicted = await run('evict', () => this.budget.evictForQuota())
      if (evicted.length > 0) this.events.emit('evict', { keys: evicted, reason: 'quota' })
      try {
        await this.write(rows)
      } catch (again) {
        throw storeError('write', again)
      }
    }
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    return run('delete', async () => {
      const tx = this.tx()
      const now = Date.now()
      let removed = 0
      let freed = 0
      for (const key of keys) {
        const row = (await tx.objectStore(this.names.entries).get(key)) as Row | undefined
        if (row === undefined) continue
        await tx.objectStore(this.names.entries).delete(key)
        freed += row.size
        if (row.expiresAt > now) removed++
      }
      await this.budget.add(tx, -freed)
      await tx.done
      return removed
    })
  }

  async clear(prefix: string): Promise<void> {
    await run('clear', async () => {
      const tx = this.tx()
      let freed = 0
      let cursor = await tx.objectStore(this.names.entries).openCursor(IDBKeyRange.lowerBound(prefix))
      while (cursor && (cursor.key as string).startsWith(prefix)) {
        freed += (cursor.value as Row).size
        await cursor.delete()
        cursor = await cursor.continue()
      }
      await this.budget.add(tx, -freed)
      await tx.done
    })
  }

  /** The live keys under `prefix`, collected first: a transaction ends when its task yields to a consumer that awaits. */
  async keys(prefix: string): Promise<string[]> {
    return run('keys', async () => {
      const tx = this.db.transaction(this.names.entries, 'readonly')
      const out: string[] = []
      const now = Date.now()
      let cursor = await tx.store.openCursor(IDBKeyRange.lowerBound(prefix))
      while (cursor && (cursor.key as string).startsWith(prefix)) {
        if ((cursor.value as Row).expiresAt > now) out.push(cursor.key as string)
        cursor = await cursor.continue()
      }
      await tx.done
      return out
    })
  }

  byteSize(): Promise<number> {
    return run('byteSize', () => this.budget.total())
  }

  /**
   * Deletes expired entries. A read-only count comes first: most sweeps find nothing, and a
   * read-write transaction would hold up the reads queued behind it.
   */
  async sweep(): Promise<void> {
    const expired = await this.db.countFromIndex(this.names.entries, 'expiresAt', IDBKeyRange.upperBound(Date.now()))
    if (expired === 0) return
    const tx = this.tx()
    let freed = 0
    let cursor = await tx.objectStore(this.names.entries).index('expiresAt').openCursor(IDBKeyRange.upperBound(Date.now()))
    while (cursor) {
      freed += (cursor.value as Row).size
      await cursor.delete()
      cursor = await cursor.continue()
    }
    await this.budget.add(tx, -freed)
    await tx.done
  }

  /** Writes pending access times (unless `flush` is false) and closes the connection. */
  async close(flush = true): Promise<void> {
    if (flush) await this.budget.flush().catch(() => {})
    // Reads still waiting for a later task are asked for before the connection closes (it waits for them).
    this.reads.askWaiting()
    this.db.close()
  }

  private tx(): Tx {
    beginWrite()
    return this.db.transaction([this.names.entries, this.names.meta], 'readwrite') as unknown as Tx
  }

  private live(row: Row | undefined): Uint8Array | undefined {
    if (row === undefined || row.expiresAt <= Date.now()) return undefined
    this.budget.touch(row.key)
    return new Uint8Array(row.value)
  }

  // One transaction: the rows, the byte total, and eviction down to maxBytes. Without a budget,
  // no total is kept: a write is only puts (byteSize() then counts on demand).
  private async write(rows: readonly Row[]): Promise<void> {
    if (this.budget.maxBytes === undefined) {
      // Puts only: the reads waiting of other keys read the same after it (with a budget, eviction may delete any key).
      beginWrite(rows.map((row) => row.key))
      const tx = unwrap(this.db).transaction(this.names.entries, 'readwrite')
      const done = committed(tx)
      try {
        const store = tx.objectStore(this.names.entries)
        for (const row of rows) store.put(row)
      } catch (e) {
        // A row the browser cannot clone: none of the batch is written.
        done.catch(() => {})
        try {
          tx.abort()
        } catch {}
        throw e
      }
      return done
    }
    const tx = this.tx()
    const store = tx.objectStore(this.names.entries)
    let delta = 0
    for (const row of rows) {
      const old = (await store.get(row.key)) as Row | undefined
      delta += row.size - (old?.size ?? 0)
      await store.put(row)
    }
    const total = await this.budget.add(tx, delta)
    const evicted = await this.budget.evictOver(tx, total, new Set(rows.map((r) => r.key)))
    await tx.done
    if (evicted.length > 0) this.events.emit('evict', { keys: evicted, reason: 'maxBytes' })
  }
}
