// The IndexedDB store as users get it: its types and options, and the lazy wrapper that opens the
// database on first use, falls back to memory, and hands each call to the backend in use (the
// plain store over IndexedDB, plain-idb-store.ts, or the memory store).
import { checkOptionNames, checkStoreEntry as checkEntry, checkStoreKey as checkKey, createMemoryStore, Emitter, StowageError, StowageErrorCode, type Store, type StoreEntry, type StoreSetOptions } from '@stowage/core'
import { openDatabase } from './open-database.js'
import { memoryBackend, type Backend } from './backend.js'
import type { IdbStoreEvents } from './events.js'
import { PlainIdbStore } from './plain-idb-store.js'
import { storeError, type StoreNames } from './records.js'

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

/** A {@link Store} over IndexedDB, with events and storage helpers. */
export interface IdbStore extends Required<Omit<Store, 'getField' | 'getFields' | 'setField' | 'deleteField' | 'ensureMany'>> {
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

const META_SUFFIX = ':meta'
type Found = { value: Uint8Array; ttl: number | undefined } | undefined

// How long after opening the first sweep waits, so that it never runs before the first reads.
const SWEEP_AFTER_OPEN = 1000

function invalid(message: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message)
}

// The store users get: checks arguments, opens IndexedDB on the first call (never at import, so
// server-side rendering is safe), falls back to memory where IndexedDB is missing, broken or
// blocked, reopens after another tab or the browser closed the connection, and sweeps on a timer.
class LazyIdbStore implements IdbStore {
  readonly name = 'indexeddb'
  private opening: Promise<Backend> | undefined
  // Reads asked for while the database opens before any write was: each then resumed on its own in
  // the task that opened it (5,000 of them, a first screen: ~100 ms of main thread in Chromium 156),
  // they are asked for of it in one go. A write asked for meanwhile: the reads after it wait in turn.
  private readonly early: Array<{ key: string; resolve: (found: Found) => void; reject: (error: unknown) => void }> = []
  private writeAsked = false
  private openFailed = false
  private current: Backend | undefined
  private closed = false
  // What close() does, once: a second call waits for the same.
  private closing: Promise<void> | undefined
  private readonly events = new Emitter<IdbStoreEvents>()
  private sweepTimer: ReturnType<typeof setInterval> | undefined
  private readonly names: StoreNames

  constructor(
    private readonly dbName: string,
    storeName: string,
    private readonly maxBytes: number | undefined,
    private readonly openTimeout: number,
    private readonly sweepInterval: number,
    private readonly allowFallback: boolean,
  ) {
    this.names = { entries: storeName, meta: storeName + META_SUFFIX }
  }

  get backend(): IdbStore['backend'] {
    return this.current?.kind
  }

  on<E extends keyof IdbStoreEvents>(event: E, listener: (event: IdbStoreEvents[E]) => void): () => void {
    return this.events.on(event, listener)
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.getWithTtl(key).then((found) => found?.value)
  }

  getWithTtl(key: string): Promise<Found> {
    try {
      checkKey(key)
    } catch (e) {
      return Promise.reject(e)
    }
    // Open (or a write asked for first): one turn later, as every other call, so that it keeps its place after a write asked for before it.
    if (this.current !== undefined || this.closed || this.writeAsked || this.openFailed) return this.ready().then((backend) => backend.getWithTtl(key))
    // Opening, no write asked for yet: handed to the database as soon as it has opened.
    const found = new Promise<Found>((resolve, reject) => this.early.push({ key, resolve, reject }))
    if (this.opening === undefined) void this.ready().catch(() => {})
    return found
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
    return (await this.ready()).getMany(keys)
  }

  async getManyWithTtl(keys: readonly string[]): Promise<Array<Found>> {
    keys.forEach(checkKey)
    return (await this.ready()).getManyWithTtl(keys)
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    for (const { key, value, ttl } of entries) checkEntry(key, value, ttl)
    return (await this.ready(true)).setMany(entries)
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    keys.forEach(checkKey)
    return (await this.ready(true)).deleteMany(keys)
  }

  async clear(prefix: string): Promise<void> {
    return (await this.ready(true)).clear(prefix)
  }

  async *keys(prefix: string): AsyncIterable<string> {
    yield* await (await this.ready()).keys(prefix)
  }

  close(): Promise<void> {
    this.closed = true
    this.closing ??= this.shut()
    return this.closing
  }

  // Still opening: the calls made before close() go on once it has opened, then its connection
  // closes (before, it stayed open, and so did its sweep timer).
  private async shut(): Promise<void> {
    await this.opening?.catch(() => {})
    clearInterval(this.sweepTimer)
    await this.current?.close()
  }

  async byteSize(): Promise<number> {
    return (await this.ready()).byteSize()
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

  // The open backend. `write`: the call writes (a read asked for after it, while the database
  // opens, waits in turn behind it instead of going with the early reads).
  private ready(write = false): Promise<Backend> {
    if (this.closed) return Promise.reject(new StowageError(StowageErrorCode.STORE_ERROR, 'the IndexedDB store is closed'))
    if (this.current) return Promise.resolve(this.current)
    if (write) this.writeAsked = true
    this.opening ??= this.open().then(
      (backend) => {
        this.current = backend
        this.opening = undefined
        // Before any call that awaited the opening goes on: the early reads were all asked for before them.
        this.writeAsked = false
        for (const { key, resolve, reject } of this.early.splice(0)) backend.getWithTtl(key).then(resolve, reject)
        return backend
      },
      (e: unknown) => {
        // Every later call rejects with this too (the opening stays failed): no read waits in `early` for an opening that is over.
        this.openFailed = true
        for (const { reject } of this.early.splice(0)) reject(e)
        throw e
      },
    )
    return this.opening
  }

  private async open(): Promise<Backend> {
    // Touched lazily, so that importing this package during server-side rendering never fails.
    if ((globalThis as { indexedDB?: IDBFactory }).indexedDB === undefined) return this.fallback('IndexedDB is not available in this environment', undefined)
    let db
    try {
      db = await openDatabase(this.dbName, this.names, this.openTimeout, {
        // A newer version wants the database: let it, and reopen on our next call.
        blocking: () => this.drop('another tab opened a newer version of the database'),
        terminated: () => this.drop('the browser closed the database connection'),
      })
    } catch (e) {
      return this.fallback('IndexedDB could not be opened', e)
    }
    const store = new PlainIdbStore(db, this.names, this.maxBytes, this.events)
    const where = { dbName: this.dbName, storeName: this.names.entries }
    if (store.budgeted) {
      await store.prepare()
      this.events.emit('swept', where)
    } else {
      // Reads skip expired entries on their own: the first reads after a reload need not wait for
      // a sweep (it cost them a read-write transaction; apps/bench/RESULTS.md, "Reads after a reload").
      const timer = setTimeout(() => {
        if (this.closed || this.current !== store) return // closed or dropped since
        store
          .sweep()
          .catch(() => {})
          .finally(() => this.events.emit('swept', where))
      }, SWEEP_AFTER_OPEN)
      ;(timer as { unref?: () => void }).unref?.()
    }
    if (this.sweepInterval > 0 && this.sweepTimer === undefined && !this.closed) {
      this.sweepTimer = setInterval(() => {
        this.current?.sweep().catch(() => {})
      }, this.sweepInterval)
      ;(this.sweepTimer as { unref?: () => void }).unref?.()
    }
    this.events.emit('open', where)
    return store
  }

  private drop(reason: string): void {
    const backend = this.current
    this.current = undefined
    // At once: the other tab's upgrade waits for this connection to close.
    backend?.close(false).catch(() => {})
    this.events.emit('reopen', { reason })
  }

  private fallback(reason: string, error: unknown): Backend {
    if (!this.allowFallback) throw storeError('open', error ?? new Error(reason))
    this.events.emit('fallback', { reason, error })
    return memoryBackend(createMemoryStore({ maxBytes: this.maxBytes, sweepInterval: this.sweepInterval }))
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
  checkOptionNames('createIdbStore', options, ['dbName', 'storeName', 'maxBytes', 'openTimeout', 'sweepInterval', 'fallback'] satisfies ReadonlyArray<keyof IdbStoreOptions>)
  const { dbName = 'stowage', storeName = 'entries', maxBytes, openTimeout = DEFAULT_OPEN_TIMEOUT, sweepInterval = DEFAULT_IDB_SWEEP_INTERVAL, fallback = true } = options
  if (typeof dbName !== 'string' || dbName === '' || typeof storeName !== 'string' || storeName === '') throw invalid('dbName and storeName must be non-empty strings')
  if (maxBytes !== undefined && !(Number.isInteger(maxBytes) && maxBytes > 0)) throw invalid('maxBytes must be a positive integer')
  if (!(Number.isFinite(openTimeout) && openTimeout > 0)) throw invalid('openTimeout must be a positive number of ms')
  if (!(Number.isFinite(sweepInterval) && sweepInterval >= 0)) throw invalid('sweepInterval must be a number of ms ≥ 0')
  return new LazyIdbStore(dbName, storeName, maxBytes, openTimeout, sweepInterval, fallback)
}
