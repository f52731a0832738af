import { checkStoreEntry as checkEntry, checkStoreKey as checkKey, createMemoryStore, Emitter, StowageError, StowageErrorCode, type MemoryStore, type Store, type StoreEntry, type StoreSetOptions } from '@stowage/core'
import { openDB, type IDBPDatabase, type IDBPTransaction } from 'idb'

/** Options of {@link createIdbStore}. Every field is optional. */
export interface IdbStoreOptions {
  /** The IndexedDB database. Defaults to `'stowage'`. */
  readonly dbName?: string
  /** The object store inside it (created on first use). Defaults to `'entries'`. */
  readonly storeName?: string
  /** Bytes kept before least recently used entries are evicted. Defaults to none: only the browser's quota limits it. */
  readonly maxBytes?: number
  /** Longest wait for the database to open (another tab may block it) before falling back. Defaults to 3000 ms. */
  readonly openTimeout?: number
  /** Milliseconds between sweeps of expired entries while the store is in use; 0 turns them off. Defaults to 60 000. */
  readonly sweepInterval?: number
  /** When IndexedDB is missing, broken or blocked, keep working in memory (and say so by a `fallback` event). Defaults to `true`. */
  readonly fallback?: boolean
}

/** The events of an {@link IdbStore} and what their listeners receive. */
export interface IdbStoreEvents {
  /** The database is open and swept. */
  open: { readonly dbName: string; readonly storeName: string }
  /** IndexedDB could not be used; the store now keeps entries in memory. */
  fallback: { readonly reason: string; readonly error: unknown }
  /** The connection was closed (a newer version in another tab, or the browser); the next call reopens it. */
  reopen: { readonly reason: string }
  /** Entries were evicted to stay within `maxBytes` or the browser's quota. */
  evict: { readonly keys: readonly string[]; readonly reason: 'maxBytes' | 'quota' }
}

/** A {@link Store} over IndexedDB, with events and storage helpers. */
export interface IdbStore extends Required<Omit<Store, 'getField' | 'getFields' | 'setField' | 'deleteField'>> {
  /** `'indexeddb'`, or `'memory'` after a fallback; `undefined` before the first call opened the store. */
  readonly backend: 'indexeddb' | 'memory' | undefined
  /** Listens to an event; returns a function that stops listening. */
  on<E extends keyof IdbStoreEvents>(event: E, listener: (event: IdbStoreEvents[E]) => void): () => void
  /** Bytes the store accounts for (values and keys). */
  byteSize(): Promise<number>
  /** The browser's storage estimate (`navigator.storage.estimate()`), or `undefined` where there is none. */
  estimate(): Promise<{ readonly usage: number; readonly quota: number } | undefined>
  /**
   * Asks the browser to keep this origin's storage under pressure (`navigator.storage.persist()`).
   * @param options How long to wait for the answer.
   * @returns `true` when the storage is persistent; `false` where unsupported, refused, or not answered within `timeout`.
   */
  persist(options?: IdbPersistOptions): Promise<boolean>
}

/** Options of {@link IdbStore.persist}. Every field is optional. */
export interface IdbPersistOptions {
  /**
   * Longest wait for the browser's answer. Firefox asks the user and leaves the promise pending
   * until they answer, which may be never (headless, or a prompt that is ignored). Defaults to 5000 ms.
   */
  readonly timeout?: number
}

/** Default of {@link IdbStoreOptions.openTimeout}. */
export const DEFAULT_OPEN_TIMEOUT = 3000
/** Default of {@link IdbPersistOptions.timeout}. */
export const DEFAULT_PERSIST_TIMEOUT = 5000
/** Default of {@link IdbStoreOptions.sweepInterval}. */
export const DEFAULT_IDB_SWEEP_INTERVAL = 60_000

interface Row {
  readonly key: string
  /** Exactly the value's bytes: never a view into a bigger buffer. */
  readonly value: ArrayBuffer
  readonly size: number
  readonly expiresAt: number
  readonly accessedAt: number
}

type Db = IDBPDatabase
type Tx = IDBPTransaction<unknown, string[], 'readwrite'>
type Backend = { readonly kind: 'indexeddb'; readonly db: Db } | { readonly kind: 'memory'; readonly store: MemoryStore }

const META_SUFFIX = ':meta'
const BYTES = 'bytes'
// Read access times are written in batches, not on each read (reads stay read-only transactions).
const TOUCH_DELAY = 1000
// On QuotaExceededError: evict this share of the accounted bytes (at least one entry), then retry once.
const QUOTA_EVICT_SHARE = 0.1

function invalid(message: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message)
}

function storeError(what: string, e: unknown): StowageError {
  if (StowageError.isInstance(e)) return e
  if (isQuotaError(e)) return new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `IndexedDB ${what}: the browser's storage quota is full`, { cause: e })
  return new StowageError(StowageErrorCode.STORE_ERROR, `IndexedDB ${what} failed: ${String((e as Error)?.message ?? e)}`, { cause: e })
}

function isQuotaError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: string }).name === 'QuotaExceededError'
}



/** The value's own bytes as an exact-length ArrayBuffer (a view's buffer may hold much more). */
function exactBuffer(value: Uint8Array): ArrayBuffer {
  return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer
    ? value.buffer
    : (value.slice().buffer as ArrayBuffer)
}

function timeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StowageError(StowageErrorCode.STORE_ERROR, `${what} took longer than ${ms} ms`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

class IdbStoreImpl implements IdbStore {
  readonly name = 'indexeddb'
  private opening: Promise<Backend> | undefined
  private current: Backend | undefined
  private closed = false
  private readonly events = new Emitter<IdbStoreEvents>()
  private readonly touched = new Map<string, number>()
  private touchTimer: ReturnType<typeof setTimeout> | undefined
  private sweepTimer: ReturnType<typeof setInterval> | undefined
  private readonly meta: string

  constructor(
    private readonly dbName: string,
    private readonly storeName: string,
    private readonly maxBytes: number | undefined,
    private readonly openTimeout: number,
    private readonly sweepInterval: number,
    private readonly allowFallback: boolean,
  ) {
    this.meta = storeName + META_SUFFIX
  }

  get backend(): IdbStore['backend'] {
    return this.current?.kind
  }

  on<E extends keyof IdbStoreEvents>(event: E, listener: (event: IdbStoreEvents[E]) => void): () => void {
    return this.events.on(event, listener)
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return (await this.getWithTtl(key))?.value
  }

  async getWithTtl(key: string): Promise<{ value: Uint8Array; ttl: number | undefined } | undefined> {
    checkKey(key)
    const backend = await this.ready()
    if (backend.kind === 'memory') return backend.store.getWithTtl(key)
    const row = (await this.run('get', () => backend.db.get(this.storeName, key))) as Row | undefined
    const value = this.live(row)
    if (value === undefined) return undefined
    const { expiresAt } = row as Row
    return { value, ttl: expiresAt === Infinity ? undefined : Math.max(1, expiresAt - Date.now()) }
  }

  async set(key: string, value: Uint8Array, options?: StoreSetOptions): Promise<void> {
    checkEntry(key, value, options?.ttl)
    await this.setMany([{ key, value, ttl: options?.ttl }])
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key)
    return (await this.deleteMany([key])) === 1
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    keys.forEach(checkKey)
    const backend = await this.ready()
    if (backend.kind === 'memory') return backend.store.getMany!(keys)
    const rows = await this.run('getMany', async () => {
      const tx = backend.db.transaction(this.storeName, 'readonly')
      const found = await Promise.all(keys.map((key) => tx.store.get(key) as Promise<Row | undefined>))
      await tx.done
      return found
    })
    return rows.map((row) => this.live(row))
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    for (const { key, value, ttl } of entries) checkEntry(key, value, ttl)
    const backend = await this.ready()
    if (backend.kind === 'memory') return backend.store.setMany!(entries)
    const now = Date.now()
    const rows: Row[] = entries.map(({ key, value, ttl }) => ({
      key,
      value: exactBuffer(value),
      size: value.byteLength + key.length * 2,
      expiresAt: ttl === undefined ? Infinity : now + ttl,
      accessedAt: now,
    }))
    if (this.maxBytes !== undefined) {
      const too = rows.find((r) => r.size > (this.maxBytes as number))
      if (too) throw new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `an entry of ${too.size} bytes does not fit in maxBytes (${this.maxBytes})`)
    }
    try {
      await this.write(backend.db, rows)
    } catch (e) {
      if (!isQuotaError(e)) throw storeError('write', e)
      // The browser's quota: make room from the least recently used entries, then try once more.
      await this.run('evict', () => this.evictForQuota(backend.db))
      try {
        await this.write(backend.db, rows)
      } catch (again) {
        throw storeError('write', again)
      }
    }
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    keys.forEach(checkKey)
    const backend = await this.ready()
    if (backend.kind === 'memory') return backend.store.deleteMany!(keys)
    return this.run('delete', async () => {
      const tx = this.tx(backend.db)
      const now = Date.now()
      let removed = 0
      let freed = 0
      for (const key of keys) {
        const row = (await tx.objectStore(this.storeName).get(key)) as Row | undefined
        if (row === undefined) continue
        await tx.objectStore(this.storeName).delete(key)
        freed += row.size
        if (row.expiresAt > now) removed++
      }
      await this.addBytes(tx, -freed)
      await tx.done
      return removed
    })
  }

  async clear(prefix: string): Promise<void> {
    const backend = await this.ready()
    if (backend.kind === 'memory') return backend.store.clear!(prefix)
    await this.run('clear', async () => {
      const tx = this.tx(backend.db)
      let freed = 0
      let cursor = await tx.objectStore(this.storeName).openCursor(IDBKeyRange.lowerBound(prefix))
      while (cursor && (cursor.key as string).startsWith(prefix)) {
        freed += (cursor.value as Row).size
        await cursor.delete()
        cursor = await cursor.continue()
      }
      await this.addBytes(tx, -freed)
      await tx.done
    })
  }

  async *keys(prefix: string): AsyncIterable<string> {
    const backend = await this.ready()
    if (backend.kind === 'memory') {
      yield* backend.store.keys!(prefix)
      return
    }
    // Collected first: a transaction ends when its task yields to a consumer that awaits.
    const keys = await this.run('keys', async () => {
      const tx = backend.db.transaction(this.storeName, 'readonly')
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
    yield* keys
  }

  async close(): Promise<void> {
    if (this.closed) return
    await this.flushTouches().catch(() => {})
    this.closed = true
    clearInterval(this.sweepTimer)
    clearTimeout(this.touchTimer)
    const backend = this.current
    if (backend?.kind === 'indexeddb') backend.db.close()
    if (backend?.kind === 'memory') await backend.store.close?.()
  }

  async byteSize(): Promise<number> {
    const backend = await this.ready()
    if (backend.kind === 'memory') return (backend.store as ReturnType<typeof createMemoryStore>).byteSize
    if (this.maxBytes === undefined) return this.run('byteSize', () => this.countBytes(backend.db))
    return this.run('byteSize', async () => ((await backend.db.get(this.meta, BYTES)) as number | undefined) ?? 0)
  }

  private async countBytes(db: Db): Promise<number> {
    const tx = db.transaction(this.storeName, 'readonly')
    let total = 0
    let cursor = await tx.store.openCursor()
    while (cursor) {
      total += (cursor.value as Row).size
      cursor = await cursor.continue()
    }
    await tx.done
    return total
  }

  async estimate(): Promise<{ usage: number; quota: number } | undefined> {
    const storage = (globalThis.navigator as Navigator | undefined)?.storage
    if (!storage?.estimate) return undefined
    const { usage = 0, quota = 0 } = await storage.estimate()
    return { usage, quota }
  }

  async persist(options?: IdbPersistOptions): Promise<boolean> {
    const storage = (globalThis.navigator as Navigator | undefined)?.storage
    if (!storage?.persist) return false
    if (await storage.persisted?.()) return true
    let timer: ReturnType<typeof setTimeout> | undefined
    const unanswered = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), options?.timeout ?? DEFAULT_PERSIST_TIMEOUT)
    })
    return Promise.race([storage.persist(), unanswered]).finally(() => clearTimeout(timer))
  }

  private emit<E extends keyof IdbStoreEvents>(event: E, payload: IdbStoreEvents[E]): void {
    this.events.emit(event, payload)
  }

  private ready(): Promise<Backend> {
    if (this.closed) return Promise.reject(new StowageError(StowageErrorCode.STORE_ERROR, 'the IndexedDB store is closed'))
    if (this.current) return Promise.resolve(this.current)
    this.opening ??= this.open().then((backend) => {
      this.current = backend
      this.opening = undefined
      return backend
    })
    return this.opening
  }

  private async open(): Promise<Backend> {
    // Touched lazily, so that importing this package during server-side rendering never fails.
    const factory = (globalThis as { indexedDB?: IDBFactory }).indexedDB
    if (factory === undefined) return this.fallback('IndexedDB is not available in this environment', undefined)
    let db: Db
    try {
      db = await timeout(this.connect(), this.openTimeout, `opening IndexedDB database ${this.dbName}`)
    } catch (e) {
      return this.fallback('IndexedDB could not be opened', e)
    }
    await this.sweep(db).catch(() => {})
    if (this.maxBytes !== undefined) {
      // Writers without a budget keep no total: start from a true count.
      const total = await this.countBytes(db).catch(() => undefined)
      if (total !== undefined) await db.put(this.meta, total, BYTES).catch(() => {})
    }
    if (this.sweepInterval > 0 && this.sweepTimer === undefined) {
      this.sweepTimer = setInterval(() => {
        if (this.current?.kind === 'indexeddb') this.sweep(this.current.db).catch(() => {})
      }, this.sweepInterval)
      ;(this.sweepTimer as { unref?: () => void }).unref?.()
    }
    this.emit('open', { dbName: this.dbName, storeName: this.storeName })
    return { kind: 'indexeddb', db }
  }

  // Opens the database at whatever version it has; when our object stores are missing, opens it
  // again one version up to create them (so several stores can share one database).
  private async connect(): Promise<Db> {
    const handlers = {
      blocking: () => {
        // A newer version wants the database: let it, and reopen on our next call.
        this.drop('another tab opened a newer version of the database')
      },
      terminated: () => this.drop('the browser closed the database connection'),
    }
    let db = await openDB(this.dbName, undefined, handlers)
    if (db.objectStoreNames.contains(this.storeName) && db.objectStoreNames.contains(this.meta)) return db
    const version = db.version + 1
    db.close()
    const { storeName, meta } = this
    db = await openDB(this.dbName, version, {
      ...handlers,
      upgrade(upgrading) {
        if (!upgrading.objectStoreNames.contains(storeName)) {
          const store = upgrading.createObjectStore(storeName, { keyPath: 'key' })
          store.createIndex('expiresAt', 'expiresAt')
          store.createIndex('accessedAt', 'accessedAt')
        }
        if (!upgrading.objectStoreNames.contains(meta)) upgrading.createObjectStore(meta)
      },
    })
    return db
  }

  private drop(reason: string): void {
    const backend = this.current
    this.current = undefined
    if (backend?.kind === 'indexeddb') backend.db.close()
    this.emit('reopen', { reason })
  }

  private fallback(reason: string, error: unknown): Backend {
    if (!this.allowFallback) throw storeError('open', error ?? new Error(reason))
    this.emit('fallback', { reason, error })
    return { kind: 'memory', store: createMemoryStore({ maxBytes: this.maxBytes, sweepInterval: this.sweepInterval }) }
  }

  private async run<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (e) {
      throw storeError(what, e)
    }
  }

  private tx(db: Db): Tx {
    return db.transaction([this.storeName, this.meta], 'readwrite') as unknown as Tx
  }

  private live(row: Row | undefined): Uint8Array | undefined {
    if (row === undefined || row.expiresAt <= Date.now()) return undefined
    this.touch(row.key)
    return new Uint8Array(row.value)
  }

  private touch(key: string): void {
    if (this.maxBytes === undefined) return
    this.touched.set(key, Date.now())
    this.touchTimer ??= setTimeout(() => {
      this.touchTimer = undefined
      this.flushTouches().catch(() => {})
    }, TOUCH_DELAY)
  }

  private async flushTouches(): Promise<void> {
    if (this.touched.size === 0 || this.current?.kind !== 'indexeddb') return
    const touched = [...this.touched]
    this.touched.clear()
    const tx = this.current.db.transaction(this.storeName, 'readwrite')
    for (const [key, at] of touched) {
      const row = (await tx.store.get(key)) as Row | undefined
      if (row !== undefined && row.accessedAt < at) await tx.store.put({ ...row, accessedAt: at })
    }
    await tx.done
  }

  private async addBytes(tx: Tx, delta: number): Promise<number> {
    if (this.maxBytes === undefined) return 0
    const meta = tx.objectStore(this.meta)
    const total = Math.max(0, (((await meta.get(BYTES)) as number | undefined) ?? 0) + delta)
    await meta.put(total, BYTES)
    return total
  }

  // One transaction: the rows, the byte total, and LRU eviction down to maxBytes. Without a
  // budget, no total is kept: a write is only puts (byteSize() then counts on demand).
  private async write(db: Db, rows: readonly Row[]): Promise<void> {
    if (this.maxBytes === undefined) {
      const tx = db.transaction(this.storeName, 'readwrite')
      await Promise.all(rows.map((row) => tx.store.put(row)))
      await tx.done
      return
    }
    const tx = this.tx(db)
    const store = tx.objectStore(this.storeName)
    let delta = 0
    for (const row of rows) {
      const old = (await store.get(row.key)) as Row | undefined
      delta += row.size - (old?.size ?? 0)
      await store.put(row)
    }
    let total = await this.addBytes(tx, delta)
    const evicted: string[] = []
    if (this.maxBytes !== undefined && total > this.maxBytes) {
      const keep = new Set(rows.map((r) => r.key))
      let cursor = await store.index('accessedAt').openCursor()
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
      total = await this.addBytes(tx, -freed)
    }
    await tx.done
    if (evicted.length > 0) this.emit('evict', { keys: evicted, reason: 'maxBytes' })
  }

  private async evictForQuota(db: Db): Promise<void> {
    const tx = this.tx(db)
    const store = tx.objectStore(this.storeName)
    const total = ((await tx.objectStore(this.meta).get(BYTES)) as number | undefined) ?? 0
    const target = Math.max(1, total * QUOTA_EVICT_SHARE)
    const evicted: string[] = []
    let freed = 0
    let cursor = await store.index('accessedAt').openCursor()
    while (cursor && (freed < target || evicted.length === 0)) {
      freed += (cursor.value as Row).size
      evicted.push((cursor.value as Row).key)
      await cursor.delete()
      cursor = await cursor.continue()
    }
    await this.addBytes(tx, -freed)
    await tx.done
    if (evicted.length > 0) this.emit('evict', { keys: evicted, reason: 'quota' })
  }

  private async sweep(db: Db): Promise<void> {
    const tx = this.tx(db)
    let freed = 0
    let cursor = await tx.objectStore(this.storeName).index('expiresAt').openCursor(IDBKeyRange.upperBound(Date.now()))
    while (cursor) {
      freed += (cursor.value as Row).size
      await cursor.delete()
      cursor = await cursor.continue()
    }
    await this.addBytes(tx, -freed)
    await tx.done
  }
}

/**
 * Creates a {@link Store} over IndexedDB (through `idb`), for browsers and workers. Nothing touches
 * IndexedDB until the first call; where it is missing (server-side rendering), broken or blocked
 * past `openTimeout`, the store keeps working in memory and emits `fallback`.
 * Records hold the value's exact bytes, its expiry and its last access, indexed for sweeps and LRU.
 *
 * @param options - see {@link IdbStoreOptions}.
 * @returns an {@link IdbStore}.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export function createIdbStore(options: IdbStoreOptions = {}): IdbStore {
  const { dbName = 'stowage', storeName = 'entries', maxBytes, openTimeout = DEFAULT_OPEN_TIMEOUT, sweepInterval = DEFAULT_IDB_SWEEP_INTERVAL, fallback = true } = options
  if (typeof dbName !== 'string' || dbName === '' || typeof storeName !== 'string' || storeName === '') throw invalid('dbName and storeName must be non-empty strings')
  if (maxBytes !== undefined && !(Number.isInteger(maxBytes) && maxBytes > 0)) throw invalid('maxBytes must be a positive integer')
  if (!(Number.isFinite(openTimeout) && openTimeout > 0)) throw invalid('openTimeout must be a positive number of ms')
  if (!(Number.isFinite(sweepInterval) && sweepInterval >= 0)) throw invalid('sweepInterval must be a number of ms ≥ 0')
  return new IdbStoreImpl(dbName, storeName, maxBytes, openTimeout, sweepInterval, fallback)
}
