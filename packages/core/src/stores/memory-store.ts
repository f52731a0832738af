import { StowageErrorCode } from '../errors/error-codes.js'
import type { Store, StoreEntry, StoreSetOptions } from './store.js'
import { StowageError } from '../errors/stowage-error.js'
import { checkBytes, checkEntry, checkKey, checkTtl } from './validate.js'
import { checkOptionNames } from '../errors/option-names.js'

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** Bytes kept (values, keys and {@link MEMORY_ENTRY_OVERHEAD} per entry) before the least recently used entries are evicted. Defaults to 64 MiB ({@link DEFAULT_MEMORY_MAX_BYTES}). */
  readonly maxBytes?: number
  /** Milliseconds between sweeps of expired entries; 0 turns sweeping off (expired entries are still never returned). Defaults to 30 000 ({@link DEFAULT_SWEEP_INTERVAL}). */
  readonly sweepInterval?: number
}

/** Default of {@link MemoryStoreOptions.maxBytes}: 64 MiB. */
export const DEFAULT_MEMORY_MAX_BYTES = 64 * 1024 * 1024
/** Default of {@link MemoryStoreOptions.sweepInterval}: 30 s. */
export const DEFAULT_SWEEP_INTERVAL = 30_000
/**
 * Bytes counted per entry on top of its value and key (half of it per bundle field): what a Map
 * slot, the entry record and a Uint8Array with its allocation cost in V8, measured as RSS (see
 * apps/bench/RESULTS.md, "Memory store accounting"). A store of small values then really takes
 * about what it counts, not four times as much.
 */
export const MEMORY_ENTRY_OVERHEAD = 600

interface Entry {
  /** The value, or undefined when the key holds a bundle. */
  readonly value: Uint8Array | undefined
  /** The bundle's fields, or undefined when the key holds a value; changed in place. */
  readonly fields: Map<string, Uint8Array> | undefined
  expiresAt: number
  size: number
}

// What one bundle field counts for.
function fieldSize(field: string, bytes: Uint8Array): number {
  return field.length * 2 + bytes.byteLength + MEMORY_ENTRY_OVERHEAD / 2
}

function wrongType(key: string, want: string): StowageError {
  return new StowageError(StowageErrorCode.STORE_ERROR, `the key ${JSON.stringify(key)} does not hold a ${want}`)
}

/**
 * The in-memory store: see {@link createMemoryStore}. Every ability but `ensureMany`: its tag
 * keys are bounded by `maxBytes` like every entry (an evicted tag reads as deleted).
 */
export interface MemoryStore extends Required<Omit<Store, 'ensureMany'>> {
  /** Bytes currently accounted (values, keys, per-entry overhead). */
  readonly byteSize: number
  /** Entries currently held, expired ones not yet swept included. */
  readonly size: number
}

class LruMemoryStore implements MemoryStore {
  readonly name = 'memory'
  // A Map iterates in insertion order: re-inserting on each read keeps the least recently used first.
  private readonly entries = new Map<string, Entry>()
  private bytes = 0
  private closed = false
  private readonly timer: ReturnType<typeof setInterval> | undefined

  constructor(private readonly maxBytes: number, sweepInterval: number) {
    if (sweepInterval > 0) {
      this.timer = setInterval(() => this.sweep(), sweepInterval)
      // Never keep a Node process alive just to sweep a cache (browsers have no unref).
      ;(this.timer as { unref?: () => void }).unref?.()
    }
  }

  get byteSize(): number {
    return this.bytes
  }

  get size(): number {
    return this.entries.size
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.open()
    checkKey(key)
    return this.read(key)
  }

  async getWithTtl(key: string): Promise<{ value: Uint8Array; ttl: number | undefined } | undefined> {
    this.open()
    checkKey(key)
    return this.readWithTtl(key)
  }

  async getManyWithTtl(keys: readonly string[]): Promise<Array<{ value: Uint8Array; ttl: number | undefined } | undefined>> {
    this.open()
    keys.forEach(checkKey)
    return keys.map((key) => this.readWithTtl(key))
  }

  private readWithTtl(key: string): { value: Uint8Array; ttl: number | undefined } | undefined {
    const value = this.read(key)
    if (value === undefined) return undefined
    const { expiresAt } = this.entries.get(key) as Entry
    return { value, ttl: expiresAt === Infinity ? undefined : Math.max(1, expiresAt - Date.now()) }
  }

  async set(key: string, value: Uint8Array, options?: StoreSetOptions): Promise<void> {
    this.open()
    this.write(key, value, options?.ttl)
  }

  async delete(key: string): Promise<boolean> {
    this.open()
    checkKey(key)
    return this.remove(key)
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    this.open()
    keys.forEach(checkKey)
    return keys.map((key) => this.read(key))
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    this.open()
    // Check everything first, so a bad entry leaves the store untouched.
    for (const { key, value, ttl } of entries) this.check(key, value, ttl)
    for (const { key, value, ttl } of entries) this.write(key, value, ttl)
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    this.open()
    keys.forEach(checkKey)
    let removed = 0
    for (const key of keys) if (this.remove(key)) removed++
    return removed
  }

  async clear(prefix: string): Promise<void> {
    this.open()
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.remove(key)
  }

  async *keys(prefix: string): AsyncIterable<string> {
    this.open()
    const now = Date.now()
    for (const [key, entry] of [...this.entries]) {
      if (key.startsWith(prefix) && entry.expiresAt > now) yield key
    }
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.closed = true
    this.entries.clear()
    this.bytes = 0
  }

  private open(): void {
    if (this.closed) throw new StowageError(StowageErrorCode.STORE_ERROR, 'the memory store is closed')
  }

  async getField(key: string, field: string): Promise<Uint8Array | undefined> {
    this.open()
    checkKey(key)
    return this.bundle(key)?.get(field)?.slice()
  }

  async getFields(key: string): Promise<Map<string, Uint8Array>> {
    this.open()
    checkKey(key)
    return new Map([...(this.bundle(key) ?? [])].map(([field, value]) => [field, value.slice()]))
  }

  async setField(key: string, field: string, value: Uint8Array, options?: StoreSetOptions): Promise<void> {
    this.open()
    checkKey(key)
    if (typeof field !== 'string') throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'a field must be a string')
    checkBytes(value)
    checkTtl(options?.ttl)
    const copy = new Uint8Array(value)
    const fields = this.bundle(key)
    if (fields === undefined) {
      this.put(key, undefined, new Map([[field, copy]]), options?.ttl)
      return
    }
    // In place, so a bundle of n fields costs O(n) to build, not O(n²).
    const entry = this.entries.get(key) as Entry
    const old = fields.get(field)
    const delta = fieldSize(field, copy) - (old === undefined ? 0 : fieldSize(field, old))
    this.fits(entry.size + delta)
    fields.set(field, copy)
    entry.size += delta
    entry.expiresAt = options?.ttl === undefined ? Infinity : Date.now() + options.ttl
    this.bytes += delta
    this.evict()
  }

  async deleteField(key: string, field: string): Promise<boolean> {
    this.open()
    checkKey(key)
    const current = this.bundle(key)
    if (current === undefined || !current.has(field)) return false
    const entry = this.entries.get(key) as Entry
    if (current.size === 1) {
      this.remove(key)
      return true
    }
    const size = fieldSize(field, current.get(field) as Uint8Array)
    current.delete(field)
    entry.size -= size
    this.bytes -= size
    return true
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= Date.now()) {
      this.remove(key)
      return undefined
    }
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry
  }

  private read(key: string): Uint8Array | undefined {
    const entry = this.live(key)
    if (entry === undefined) return undefined
    if (entry.value === undefined) throw wrongType(key, 'value')
    // A copy: what callers do to the result never reaches the stored bytes.
    return entry.value.slice()
  }

  private bundle(key: string): Map<string, Uint8Array> | undefined {
    const entry = this.live(key)
    if (entry === undefined) return undefined
    if (entry.fields === undefined) throw wrongType(key, 'bundle')
    return entry.fields
  }

  private check(key: string, value: Uint8Array, ttl: number | undefined): number {
    checkEntry(key, value, ttl)
    return this.fits(value.byteLength + key.length * 2 + MEMORY_ENTRY_OVERHEAD)
  }

  private fits(size: number): number {
    if (size > this.maxBytes) {
      throw new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `an entry of ${size} bytes does not fit in the memory store's maxBytes (${this.maxBytes})`)
    }
    return size
  }

  private write(key: string, value: Uint8Array, ttl: number | undefined): void {
    this.check(key, value, ttl)
    // A copy of its own (a Node Buffer's slice() would share the caller's memory).
    this.put(key, new Uint8Array(value), undefined, ttl)
  }

  private put(key: string, value: Uint8Array | undefined, fields: Map<string, Uint8Array> | undefined, ttl: number | undefined): void {
    let size = key.length * 2 + MEMORY_ENTRY_OVERHEAD + (value?.byteLength ?? 0)
    for (const [field, bytes] of fields ?? []) size += fieldSize(field, bytes)
    this.fits(size)
    this.remove(key)
    this.entries.set(key, { value, fields, expiresAt: ttl === undefined ? Infinity : Date.now() + ttl, size })
    this.bytes += size
    this.evict()
  }

  // Least recently used first, until the budget holds (the entry just written is the newest).
  private evict(): void {
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.remove(oldest)
    }
  }

  private remove(key: string): boolean {
    const entry = this.entries.get(key)
    if (entry === undefined) return false
    this.entries.delete(key)
    this.bytes -= entry.size
    return entry.expiresAt > Date.now()
  }

  private sweep(): void {
    const now = Date.now()
    for (const [key, entry] of [...this.entries]) if (entry.expiresAt <= now) this.remove(key)
  }
}

/**
 * Creates the in-memory store, the embedded default: a byte-accounted LRU with TTLs, expired
 * lazily on read and swept periodically (by a timer that never keeps a Node process alive).
 * It has every optional ability of {@link Store}.
 *
 * @param options - see {@link MemoryStoreOptions}.
 * @returns a {@link MemoryStore}.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  checkOptionNames('createMemoryStore', options, ['maxBytes', 'sweepInterval'] satisfies ReadonlyArray<keyof MemoryStoreOptions>)
  const maxBytes = options.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES
  const sweepInterval = options.sweepInterval ?? DEFAULT_SWEEP_INTERVAL
  if (!(Number.isInteger(maxBytes) && maxBytes > 0)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `maxBytes must be a positive integer, got ${String(maxBytes)}`)
  }
  if (!(Number.isFinite(sweepInterval) && sweepInterval >= 0)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `sweepInterval must be a number of milliseconds ≥ 0, got ${String(sweepInterval)}`)
  }
  return new LruMemoryStore(maxBytes, sweepInterval)
}
