// The in-process tier of a cache: decoded values kept by reference in this process, so a hit costs
// a Map lookup (no copy, no CRC, no decode). Entries not used lately go first once the tier passes
// its entry count or its byte budget (counted as the entries' stored envelope sizes): a hit only
// marks its entry, and eviction gives marked entries a second chance (the CLOCK approximation of
// least-recently-used; moving the entry on every hit would halve the speed of a hit).
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import { positiveInteger } from '../stores/validate.js'
import { checkOptionNames } from '../errors/option-names.js'
import { deepFreeze } from '../codec/deep-freeze.js'

/** Options of the in-process tier ({@link CacheOptions.local}). */
export interface LocalOptions {
  /** Most entries kept; entries not used lately leave first. Defaults to 10 000 ({@link DEFAULT_LOCAL_MAX_ENTRIES}). */
  readonly maxEntries?: number
  /**
   * Byte budget, counted as the entries' envelope sizes (what the store holds for them, a proxy
   * for their memory). Defaults to 64 MiB ({@link DEFAULT_LOCAL_MAX_BYTES}).
   */
  readonly maxBytes?: number
  /**
   * Longest life of a local copy in ms; the entry's remaining TTL in the store, when shorter (or
   * known), wins. Defaults to 10 000 ({@link DEFAULT_LOCAL_TTL}).
   */
  readonly ttl?: number
  /**
   * Freeze plain objects and arrays (deeply) as they enter the tier, so that a caller who mutates
   * a value every caller shares gets a TypeError instead of changing what the others read (the
   * tier keeps its own decoded copy, never the object given to `set`). Maps, Sets, Dates and typed
   * arrays stay mutable: do not change them. A hit costs the same either way; freezing costs a walk
   * of the value when it enters the tier. `false` shares unfrozen values. Defaults to `true`.
   */
  readonly freeze?: boolean
  /**
   * Most tag generations remembered to check tagged local copies against (the least recently
   * learnt leave first; a copy whose tag was let go is read from the store again). Defaults to
   * 20 000 ({@link DEFAULT_LOCAL_MAX_TAGS}).
   */
  readonly maxTags?: number
}

/** Default of {@link LocalOptions.maxEntries}. */
export const DEFAULT_LOCAL_MAX_ENTRIES = 10_000
/** Default of {@link LocalOptions.maxBytes}: 64 MiB. */
export const DEFAULT_LOCAL_MAX_BYTES = 64 * 1024 * 1024
/** Default of {@link LocalOptions.ttl}. */
export const DEFAULT_LOCAL_TTL = 10_000
/** Default of {@link LocalOptions.maxTags}: about 3 MB of tag keys and generations. */
export const DEFAULT_LOCAL_MAX_TAGS = 20_000

/** A decoded value as the tier keeps it. */
export interface LocalEntry {
  readonly value: unknown
  readonly freshUntil: number | undefined
  /** The entry's tag stamp (tag → generation), checked by the cache on every hit. */
  readonly tags?: ReadonlyMap<string, number> | undefined
}

// An entry whose value is opened (decoded, and frozen when the tier freezes) the first time it is
// read, then kept: a value this process writes costs no decode until someone here reads it.
class LazyEntry implements LocalEntry {
  #open: (() => unknown) | undefined
  #value: unknown
  constructor(
    open: () => unknown,
    readonly freshUntil: number | undefined,
    readonly tags: ReadonlyMap<string, number> | undefined,
  ) {
    this.#open = open
  }

  get value(): unknown {
    const open = this.#open
    if (open !== undefined) {
      this.#value = open()
      this.#open = undefined
    }
    return this.#value
  }
}

interface Slot {
  readonly entry: LocalEntry
  readonly expiresAt: number
  readonly size: number
  /** Used since eviction last passed it. */
  used: boolean
}

// The namespace of a store key with its `:` (keys have their own `:` escaped: the last one ends it).
function namespaceOf(key: string): string {
  return key.slice(0, key.lastIndexOf(':') + 1)
}

/** Least-recently-used decoded values with a TTL each. */
export class LocalTier {
  private readonly slots = new Map<string, Slot>()
  // The keys of each namespace (with its `:`), so clearing one costs its own keys, not the tier's.
  private readonly namespaces = new Map<string, Set<string>>()
  private bytes = 0
  private readonly maxEntries: number
  private readonly maxBytes: number
  readonly ttl: number
  /** Whether values are kept deep-frozen ({@link LocalOptions.freeze}): readers may decode them frozen. */
  readonly freezes: boolean
  /** See {@link LocalOptions.maxTags}. */
  readonly maxTags: number

  /** @throws {StowageError} INVALID_ARGUMENT for a bad option. */
  constructor(options: LocalOptions) {
    if (typeof options !== 'object' || options === null) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'local must be true, false or an options object')
    checkOptionNames('local', options, ['maxEntries', 'maxBytes', 'ttl', 'freeze', 'maxTags'] satisfies ReadonlyArray<keyof LocalOptions>)
    this.maxEntries = positiveInteger('local.maxEntries', options.maxEntries, DEFAULT_LOCAL_MAX_ENTRIES)
    this.maxBytes = positiveInteger('local.maxBytes', options.maxBytes, DEFAULT_LOCAL_MAX_BYTES)
    this.ttl = positiveInteger('local.ttl', options.ttl, DEFAULT_LOCAL_TTL)
    if (options.freeze !== undefined && typeof options.freeze !== 'boolean') throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'local.freeze must be a boolean')
    this.freezes = options.freeze ?? true
    this.maxTags = positiveInteger('local.maxTags', options.maxTags, DEFAULT_LOCAL_MAX_TAGS)
  }

  /** The live entry under `key`, marked as used; `undefined` when absent or expired. */
  get(key: string): LocalEntry | undefined {
    const slot = this.slots.get(key)
    if (slot === undefined) return undefined
    if (slot.expiresAt <= Date.now()) {
      this.delete(key)
      return undefined
    }
    slot.used = true
    return slot.entry
  }

  /**
   * An entry whose value `open` gives the first time it is read (frozen then, when the tier
   * freezes), kept from then on. `open` must not fail: it reads bytes this process just wrote.
   */
  lazy(open: () => unknown, freshUntil: number | undefined, tags: ReadonlyMap<string, number> | undefined): LocalEntry {
    const freeze = this.freezes
    return new LazyEntry(
      () => {
        const value = open()
        if (freeze) deepFreeze(value)
        return value
      },
      freshUntil,
      tags,
    )
  }

  /** Whether {@link LocalTier.set} keeps an entry of envelope length `size` and store TTL `ttl`. */
  keeps(size: number, ttl: number | undefined): boolean {
    return (ttl === undefined || Math.min(ttl, this.ttl) > 0) && size <= this.maxBytes
  }

  /**
   * Whether a value read as an envelope of `size` bytes with store TTL `ttl` is kept here frozen:
   * its reader may then decode it built frozen (DecodeOptions.freeze), cheaper than set's walk.
   */
  keepsFrozen(size: number, ttl: number | undefined): boolean {
    return this.freezes && this.keeps(size, ttl)
  }

  /**
   * Keeps `entry` under `key` for the tier's TTL, or `ttl` ms when shorter (`undefined`: the
   * store keeps it forever). `size` is its envelope's length.
   */
  set(key: string, entry: LocalEntry, size: number, ttl: number | undefined): void {
    this.delete(key)
    const life = ttl === undefined ? this.ttl : Math.min(ttl, this.ttl)
    if (!this.keeps(size, ttl)) return
    if (this.freezes && !(entry instanceof LazyEntry)) deepFreeze(entry.value)
    this.slots.set(key, { entry, expiresAt: Date.now() + life, size, used: false })
    this.bytes += size
    const namespace = namespaceOf(key)
    const keys = this.namespaces.get(namespace)
    if (keys === undefined) this.namespaces.set(namespace, new Set([key]))
    else keys.add(key)
    this.evict(key)
  }

  // From the oldest: an entry used since it was last passed moves to the end, unmarked; the first
  // unused one leaves. `kept` (the entry just set) never leaves on its own account.
  private evict(kept: string): void {
    while (this.slots.size > this.maxEntries || this.bytes > this.maxBytes) {
      for (const [key, slot] of this.slots) {
        if (slot.used && key !== kept) {
          slot.used = false
          this.slots.delete(key)
          this.slots.set(key, slot)
          continue
        }
        if (key === kept && this.slots.size > 1) continue
        this.delete(key)
        break
      }
    }
  }

  delete(key: string): void {
    const slot = this.slots.get(key)
    if (slot === undefined) return
    this.slots.delete(key)
    this.bytes -= slot.size
    const namespace = namespaceOf(key)
    const keys = this.namespaces.get(namespace)
    keys?.delete(key)
    if (keys?.size === 0) this.namespaces.delete(namespace)
  }

  /**
   * Drops the keys under `prefix`, as a cache clears: `''` (everything) or a namespace with its
   * `:` (that namespace and its children). Costs the namespaces held and the keys dropped, so a
   * message of thousands of prefixes that name nothing here costs next to nothing.
   */
  clear(prefix: string): void {
    for (const [namespace, keys] of [...this.namespaces]) {
      if (namespace.startsWith(prefix)) for (const key of [...keys]) this.delete(key)
    }
  }
}
