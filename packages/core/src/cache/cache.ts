// The Cache façade (cache-api.ts says what it promises, create-cache.ts builds it): the public
// operations of one namespace, over the tiers, the single flight, the lease, the claims that keep
// what began before a write from landing after it, and the helpers that open entries and stamp
// tags, none of which calls back into it.
import type { Cache } from './cache-api.js'
import { CacheObserver } from './cache-observer.js'
import {
  type AcceptBytesOptions,
  type Bundle,
  type CacheClaim,
  type CacheEvents,
  type CacheOperation,
  type CacheSchema,
  type CacheSetOptions,
  type CacheTtlOptions,
  type CacheStats,
  type CacheTier,
  type GetOrSetOptions,
  type MissReason,
} from './cache-types.js'
import type { Codec, EncodedEnvelope } from '../codec/codec.js'
import { inspect, withoutTags } from '../codec/envelope.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { encodeInvalidation, splitInvalidation, type InvalidationChannel, type InvalidationMessage } from './invalidation.js'
import type { Store, StoreFence } from '../stores/store.js'
import { StowageError } from '../errors/stowage-error.js'
import { checkKey, checkTtl } from '../stores/validate.js'
import { checkNamespace, storeKey } from './keys.js'
import type { LocalTier } from './local-tier.js'
import type { SingleFlight, FlightOptions } from './single-flight.js'
import { CircuitBreaker } from './breaker.js'
import { openEntry, openHeader, openWritten, type Entry, type Opened, type Opener } from './entry-opener.js'
import { claimHandle, claimOf, type Claim, type Claims } from './claims.js'
import type { Changes, Landed } from './changes.js'
import { underLease, type LeaseRelease, type LoadLease } from './lease.js'
import { loaderError, storeError, unusable } from './cache-errors.js'
import { loadSettings, storeTtl, type LoadSettings, type WriteSettings } from './load-settings.js'
import { checkTags, renewGenerations, stampTags, TagBook, tagKey } from './tags.js'
/** What every namespace of one cache shares; settled by createCache (create-cache.ts). */
export interface Shared {
  /** The store as the cache calls it: behind the circuit breaker when there is one. */
  readonly store: Store
  /** The store as the caller gave it (or the memory store the cache made). */
  readonly given: Store
  readonly breaker: CircuitBreaker | undefined
  readonly ownsStore: boolean
  readonly codec: Codec
  readonly ttl: number | undefined
  readonly version: number
  /** How stored bytes become entries. */
  readonly opener: Opener
  readonly lease: LoadLease | undefined
  readonly leaseTime: number
  readonly readErrors: 'miss' | 'throw'
  readonly writeErrors: 'throw' | 'ignore'
  readonly measureJson: boolean
  readonly local: LocalTier | undefined
  /** What this process knows of the tags' generations (checked by local hits). */
  readonly tags: TagBook
  readonly channel: InvalidationChannel | undefined
  /** The open claims of reads, loads and writes on keys (full store keys), superseded by changes. */
  readonly claims: Claims
  /** The loaders running, by full store key: one per key whatever the namespace object. */
  readonly flight: SingleFlight
  /** How a change of keys is ordered against what is in flight, and mirrored in the local tier. */
  readonly changes: Changes
  /** Names this cache (and its namespaces) in invalidation messages. */
  readonly origin: string
  readonly messages: Codec
  /** Bytes as the package hands them out (a Buffer over the same memory on Node: see Platform.handOut). */
  readonly handOut: (bytes: Uint8Array) => Uint8Array
  unsubscribe: (() => void) | undefined
}

const utf8 = new TextEncoder()

// An entry still fresh: one another process stored, never the stale one that started a refresh.
function fresh(entry: Entry | undefined): Entry | undefined {
  return entry !== undefined && (entry.freshUntil === undefined || entry.freshUntil > Date.now()) ? entry : undefined
}

/** The cache of one namespace: the public operations, over what its namespaces share. */
export class StowageCache<S extends CacheSchema> implements Cache<S> {
  private readonly prefix: string
  private readonly observer: CacheObserver

  constructor(
    private readonly shared: Shared,
    readonly namespace: string,
  ) {
    this.prefix = `${namespace}:`
    this.observer = new CacheObserver(shared.measureJson)
  }

  get store(): Store {
    return this.shared.given
  }

  get codec(): Codec {
    return this.shared.codec
  }

  get version(): number {
    return this.shared.version
  }

  async getBytes(key: string): Promise<Uint8Array | undefined> {
    checkKey(key)
    const full = storeKey(this.prefix, key)
    const claim = this.shared.claims.begin(full)
    let bytes: Uint8Array | undefined
    try {
      bytes = await this.shared.store.get(full)
    } catch (e) {
      this.shared.claims.end(claim)
      return this.readFailed(key, e, 'get', false)
    }
    // The rules of `get`, from the header: an entry of a deleted tag is gone (and dropped).
    const opened = await openHeader(this.shared.opener, this.prefix, bytes)
    this.shared.claims.end(claim)
    if ('bytes' in opened) return this.shared.handOut(opened.bytes)
    if ('storeError' in opened) return this.readFailed(key, opened.storeError, 'get', false)
    if (opened.drop) this.drop(claim, () => this.shared.store.delete(full))
    return undefined
  }

  async setBytes(key: string, envelope: Uint8Array, options?: CacheTtlOptions): Promise<void> {
    checkKey(key)
    const ttl = options?.ttl ?? this.shared.ttl
    checkTtl(ttl)
    const { payloadLength } = inspect(envelope)
    const full = storeKey(this.prefix, key)
    this.shared.changes.starting([full])
    await this.put(key, full, { bytes: envelope, payloadLength }, ttl, undefined, 'set', false)
  }

  async openBytes(key: string, envelope: Uint8Array | undefined): Promise<never> {
    checkKey(key)
    return (await this.open(key, envelope, 'get', true))?.value as never
  }

  async acceptBytes(key: string, envelope: Uint8Array, options?: AcceptBytesOptions): Promise<never> {
    checkKey(key)
    const full = storeKey(this.prefix, key)
    // Bytes that were on their way when the key was written or cleared (a sign-out) stay out.
    const given = options?.claim === undefined ? undefined : claimOf(options.claim, full)
    const claim = given ?? this.shared.claims.begin(full)
    let opened: Opened
    let bytes: Uint8Array
    const ttl = options?.ttl ?? this.shared.ttl
    try {
      checkTtl(ttl)
      bytes = withoutTags(envelope)
      opened = await openEntry(this.shared.opener, this.prefix, key, bytes)
      if (!('entry' in opened)) throw unusable(opened, this.shared.version)
    } finally {
      this.shared.claims.end(claim)
    }
    if (!claim.superseded) {
      this.shared.changes.starting([full])
      await this.put(key, full, { bytes, payloadLength: inspect(bytes).payloadLength }, ttl, opened.entry, 'set', false)
    }
    return opened.entry.value as never
  }

  claim(key: string): CacheClaim {
    checkKey(key)
    return claimHandle(this.shared.claims, key, storeKey(this.prefix, key))
  }

  async get(key: string): Promise<never> {
    checkKey(key)
    const found = this.read(key, 'get', true)
    return (found instanceof Promise ? await found : found)?.value as never
  }

  async has(key: string): Promise<boolean> {
    checkKey(key)
    return (await this.read(key, 'get', false)) !== undefined
  }

  async set(key: string, value: unknown, options?: CacheSetOptions): Promise<void> {
    checkKey(key)
    const ttl = options?.ttl ?? this.shared.ttl
    checkTtl(ttl)
    const tags = options?.tags === undefined ? undefined : checkTags(options.tags)
    this.shared.changes.starting([storeKey(this.prefix, key)])
    await this.write(key, value, { ttl, tags }, 'set', false)
  }

  async deleteByTag(tags: string | readonly string[]): Promise<void> {
    const keys = checkTags(typeof tags === 'string' ? [tags] : tags).map((tag) => tagKey(this.prefix, tag))
    // A load running now may be of a tagged entry: callers from now on load afresh rather than
    // join it (its value, stamped with the old generation, will read as a miss).
    this.shared.flight.forgetAll(this.prefix)
    let generations: Array<number | undefined>
    try {
      generations = await renewGenerations(this.shared.store, this.shared.messages, keys)
    } catch (e) {
      this.writeFailed('deleteByTag', undefined, e, false)
      return
    }
    keys.forEach((key, i) => this.shared.tags.learn(key, generations[i]))
    this.changed('tag', keys.map((full) => ({ full })))
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key)
    const full = storeKey(this.prefix, key)
    this.shared.changes.starting([full])
    let existed = false
    try {
      existed = await this.shared.store.delete(full)
    } catch (e) {
      this.writeFailed('delete', key, e, false)
    }
    if (existed) {
      this.observer.counters.deletes++
      this.observer.emit('delete', { namespace: this.namespace, key })
    }
    this.changed('delete', [{ full }])
    return existed
  }

  async getMany(keys: readonly string[]): Promise<never[]> {
    keys.forEach(checkKey)
    const { store, local } = this.shared
    if (!store.getMany || local) return Promise.all(keys.map((key) => this.get(key)))
    let found: Array<Uint8Array | undefined>
    try {
      found = await store.getMany(keys.map((key) => storeKey(this.prefix, key)))
    } catch (e) {
      return keys.map((key) => this.readFailed(key, e)) as never[]
    }
    return Promise.all(keys.map(async (key, i) => (await this.open(key, found[i], 'get', true))?.value)) as Promise<never[]>
  }

  async setMany(entries: ReadonlyArray<{ readonly key: string; readonly value: unknown; readonly ttl?: number; readonly tags?: readonly string[] }>): Promise<void> {
    const tagsOf = entries.map((entry) => {
      checkKey(entry.key)
      checkTtl(entry.ttl ?? this.shared.ttl)
      return entry.tags === undefined ? undefined : checkTags(entry.tags)
    })
    const { store } = this.shared
    if (!store.setMany) {
      await Promise.all(entries.map((e) => this.set(e.key, e.value, { ttl: e.ttl, tags: e.tags })))
      return
    }
    const fulls = entries.map((e) => storeKey(this.prefix, e.key))
    this.shared.changes.starting(fulls)
    let stamps: Array<ReadonlyMap<string, number> | undefined>
    try {
      stamps = await this.stampsFor(tagsOf, entries.map((e) => e.ttl ?? this.shared.ttl))
    } catch (e) {
      this.writeFailed('set', undefined, e, false)
      return
    }
    const encoded = await Promise.all(entries.map((e, i) => this.encode(e.value, undefined, stamps[i])))
    const kept = await Promise.all(entries.map((e, i) => this.keepable(e.key, encoded[i] as EncodedEnvelope, 'set')))
    const { changes } = this.shared
    const own = fulls.map((full) => changes.writing(full))
    try {
      await store.setMany(entries.map((e, i) => ({ key: fulls[i] as string, value: (encoded[i] as EncodedEnvelope).bytes, ttl: e.ttl ?? this.shared.ttl })))
    } catch (e) {
      own.forEach((claim) => changes.failed(claim))
      this.writeFailed('set', undefined, e, false)
      return
    }
    entries.forEach((e, i) => this.wrote(e.key, e.value, encoded[i] as EncodedEnvelope))
    this.changed(
      'set',
      entries.map((e, i) => ({ full: fulls[i] as string, kept: kept[i], own: own[i], size: (encoded[i] as EncodedEnvelope).bytes.length, ttl: e.ttl ?? this.shared.ttl })),
    )
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    keys.forEach(checkKey)
    const { store } = this.shared
    if (!store.deleteMany) return (await Promise.all(keys.map((key) => this.delete(key)))).filter(Boolean).length
    let removed = 0
    const fulls = keys.map((key) => storeKey(this.prefix, key))
    this.shared.changes.starting(fulls)
    try {
      removed = await store.deleteMany(fulls)
    } catch (e) {
      this.writeFailed('delete', undefined, e, false)
    }
    this.observer.counters.deletes += removed
    this.changed('delete', fulls.map((full) => ({ full })))
    return removed
  }

  async clear(): Promise<void> {
    const { store } = this.shared
    // What was read, loaded or received before the clear (a sign-out) never lands after it.
    this.shared.changes.starting([this.prefix], true)
    try {
      if (store.clear) await store.clear(this.prefix)
      else if (store.keys && store.deleteMany) {
        const keys: string[] = []
        for await (const key of store.keys(this.prefix)) keys.push(key)
        await store.deleteMany(keys)
      } else {
        throw new StowageError(StowageErrorCode.STORE_ERROR, `the ${store.name} store can neither clear a prefix nor list its keys`)
      }
    } catch (e) {
      this.writeFailed('clear', undefined, e, false)
      return
    }
    this.changed('clear', [{ full: this.prefix }])
  }

  async getOrSet(key: string, loader: () => unknown, options?: GetOrSetOptions): Promise<never> {
    checkKey(key)
    if (typeof loader !== 'function') throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'getOrSet needs a loader function')
    const load = loadSettings(options, this.shared.ttl)
    const { flight, claims } = this.shared
    const full = storeKey(this.prefix, key)
    const joined = flight.joined(full)
    if (joined) return joined as Promise<never>
    // A write, delete or clear of the key from now on keeps what this call may load out of the store.
    const claim = claims.begin(full)
    let entry: Entry | undefined
    try {
      const found = this.read(key, 'getOrSet', true)
      entry = found instanceof Promise ? await found : found
    } catch (e) {
      claims.end(claim)
      throw e
    }
    const late = entry?.freshUntil === undefined ? 0 : Date.now() - entry.freshUntil
    const again = flight.joined(full)
    if (entry !== undefined && (late <= 0 || (late <= (load.staleFor ?? 0) && again !== undefined))) {
      claims.end(claim)
      return entry.value as never
    }
    if (entry !== undefined && late <= (load.staleFor ?? 0)) {
      // Stale: served to every caller while one background refresh runs.
      this.load(key, loader, load, { fallback: entry, background: true }, claim).catch(() => {})
      return entry.value as never
    }
    if (again) {
      claims.end(claim)
      return again as Promise<never>
    }
    // In its grace period, an older value answers for a loader that fails or is slow.
    const fallback = entry !== undefined && late <= (load.staleFor ?? 0) + (load.grace ?? 0) ? entry : undefined
    return this.load(key, loader, load, { fallback, softTimeout: load.softTimeout, hardTimeout: load.hardTimeout }, claim) as Promise<never>
  }

  bundle<V = unknown>(key: string): Bundle<V> {
    checkKey(key)
    const { store } = this.shared
    if (!store.getField || !store.getFields || !store.setField || !store.deleteField) {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `the ${store.name} store cannot hold bundles`)
    }
    const full = storeKey(this.prefix, key)
    const { getField, getFields, setField, deleteField } = store as Required<Store>
    const label = (field: string) => `${key}#${field}`
    return {
      key,
      get: async <T = V>(field: string): Promise<T | undefined> => {
        let bytes: Uint8Array | undefined
        try {
          bytes = await getField.call(store, full, field)
        } catch (e) {
          return this.readFailed(label(field), e, 'bundle')
        }
        return (await this.open(label(field), bytes, 'bundle', true, () => deleteField.call(store, full, field)))?.value as T | undefined
      },
      set: async (field: string, value: V, options?: CacheSetOptions): Promise<void> => {
        const ttl = options?.ttl ?? this.shared.ttl
        checkTtl(ttl)
        const encoded = await this.encode(value, undefined)
        try {
          await setField.call(store, full, field, encoded.bytes, { ttl })
        } catch (e) {
          this.writeFailed('bundle', label(field), e, false)
          return
        }
        this.wrote(label(field), value, encoded)
      },
      getAll: async <T = V>(): Promise<Map<string, T>> => {
        let fields: Map<string, Uint8Array>
        try {
          fields = await getFields.call(store, full)
        } catch (e) {
          this.readFailed(key, e, 'bundle')
          return new Map()
        }
        const out = new Map<string, T>()
        for (const [field, bytes] of fields) {
          const entry = await this.open(label(field), bytes, 'bundle', true, () => deleteField.call(store, full, field))
          if (entry !== undefined) out.set(field, entry.value as T)
        }
        return out
      },
      delete: async (field: string): Promise<boolean> => {
        try {
          const existed = await deleteField.call(store, full, field)
          if (existed) this.observer.counters.deletes++
          return existed
        } catch (e) {
          this.writeFailed('bundle', label(field), e, false)
          return false
        }
      },
    }
  }

  withNamespace(name: string): Cache<S> {
    checkNamespace(name)
    return new StowageCache<S>(this.shared, `${this.namespace}:${name}`)
  }

  stats(): CacheStats {
    return this.observer.snapshot()
  }

  on<E extends keyof CacheEvents>(event: E, listener: (event: CacheEvents[E]) => void): () => void {
    // The breaker guards the store every namespace shares: its events are the same for all.
    if (event === 'breaker') {
      const { breaker } = this.shared
      if (breaker === undefined) return () => {}
      // The breaker ignores listener errors, as the observer does for every other event.
      return breaker.on(({ state, error }) => (listener as (e: CacheEvents['breaker']) => void)({ state, error: error === undefined ? undefined : storeError('breaker', error) }))
    }
    return this.observer.on(event, listener)
  }

  async close(): Promise<void> {
    this.shared.unsubscribe?.()
    this.shared.unsubscribe = undefined
    if (this.shared.ownsStore) await this.shared.given.close?.()
  }

  // Runs the loader once for every caller of `key` (see SingleFlight) and stores what it gives,
  // unless the key was written, deleted or cleared since the call (its `claim`, which this ends,
  // was superseded).
  private load(key: string, loader: () => unknown, settings: LoadSettings, flight: FlightOptions, claim: Claim): Promise<unknown> {
    const full = storeKey(this.prefix, key)
    const { claims, lease, leaseTime } = this.shared
    const run = (async () => {
      let release: LeaseRelease | undefined
      if (lease !== undefined) {
        // Across processes: one holder of the lease loads, the others take what it stores. Only a
        // fresh entry is another's: the stale or in-grace one that started this load is not.
        const outcome = await underLease(lease, full, leaseTime, async () => fresh(await this.readStore(key, full, 'getOrSet', false)))
        if ('found' in outcome) return outcome.found.value
        release = outcome.release
      }
      // The tags' generations are read before the loader runs: a tag deleted while it loads makes
      // the value it gives a miss, since the value may predate the deletion.
      let stamp: ReadonlyMap<string, number> | undefined
      let unstorable: unknown
      if (settings.tags !== undefined) {
        try {
          stamp = (await this.stampsFor([settings.tags], [storeTtl(settings)]))[0]
        } catch (e) {
          unstorable = e
        }
      }
      try {
        const started = Date.now()
        this.observer.counters.loads++
        let value: unknown
        try {
          value = await loader()
        } catch (e) {
          this.observer.emit('load', { namespace: this.namespace, key, ms: Date.now() - started, error: e })
          throw e
        }
        this.observer.emit('load', { namespace: this.namespace, key, ms: Date.now() - started, error: undefined })
        // A loaded value the store cannot take (or whose tags it could not read) is still the answer.
        if (unstorable !== undefined) {
          this.writeFailed('getOrSet', key, unstorable, true)
          return value
        }
        // As any reader will see it (a copy through the key's schema), when this cache keeps one.
        // Under a lease with a fence: stored only while the lease is still this load's.
        const kept = await this.write(key, value, { ...settings, fence: release?.fence }, 'getOrSet', true, stamp, claim)
        return kept === undefined ? value : kept.value
      } finally {
        release?.().catch(() => {})
      }
    })()
    run.then(
      () => claims.end(claim),
      () => claims.end(claim),
    )
    const answer = this.shared.flight.start(full, run, flight, (outcome, error) => {
      if (error !== undefined && (outcome === 'fallback' || outcome === 'late-error')) this.failed(flight.background ? 'refresh' : 'getOrSet', key, loaderError(error))
    })
    // The key changed between the call and now: this load answers its own caller, nobody later.
    if (claim.superseded) this.shared.flight.forget(full)
    return answer
  }

  // A hit of the in-process tier comes back as it is, without a promise: the hot path.
  private read(key: string, operation: CacheOperation, count: boolean): Entry | Promise<Entry | undefined> {
    const full = storeKey(this.prefix, key)
    const { local, tags } = this.shared
    const near = local?.get(full)
    if (near !== undefined) {
      if (near.tags === undefined || tags.current(this.prefix, near.tags)) {
        if (count) this.hit(key, near.freshUntil, 'local')
        return near
      }
      // A tag of this copy was deleted since: the store tells what is current.
      local?.delete(full)
    }
    return this.readStore(key, full, operation, count)
  }

  private async readStore(key: string, full: string, operation: CacheOperation, count: boolean): Promise<Entry | undefined> {
    const { local, store, claims } = this.shared
    let bytes: Uint8Array | undefined
    // The store's remaining TTL bounds the local copy's life (when the store can tell it).
    let ttl: number | undefined
    // A write of the key while this read waits makes what it read too old to keep (or to drop).
    const claim = claims.begin(full)
    let entry: Entry | undefined
    try {
      try {
        if (local && store.getWithTtl) {
          const found = await store.getWithTtl(full)
          bytes = found?.value
          ttl = found?.ttl
        } else {
          bytes = await store.get(full)
        }
      } catch (e) {
        return this.readFailed(key, e, operation, count)
      }
      entry = await this.open(key, bytes, operation, count, () => (claim.superseded ? Promise.resolve() : store.delete(full)))
    } finally {
      claims.end(claim)
    }
    if (entry !== undefined && local && !claim.superseded) local.set(full, entry, (bytes as Uint8Array).length, ttl)
    return entry
  }

  private hit(key: string, freshUntil: number | undefined, tier: CacheTier): void {
    const stale = freshUntil !== undefined && freshUntil <= Date.now()
    if (stale) this.observer.counters.staleHits++
    else this.observer.counters.hits++
    this.observer.emit('hit', { namespace: this.namespace, key, stale, tier })
  }

  // After the store took a change: mirror it in this process (see Changes) and tell the others.
  // A written value is kept as decoded (`kept`, with its envelope's `size`); bytes stored without
  // their value only drop the local copy. Deleted tags reach local copies through the tag book (see `read`).
  private changed(op: InvalidationMessage['op'], entries: readonly Landed[]): void {
    const { channel } = this.shared
    if (op !== 'tag') this.shared.changes.landed(op, entries)
    if (channel) {
      for (const part of splitInvalidation({ origin: this.shared.origin, op, keys: entries.map((e) => e.full) })) {
        channel.publish(encodeInvalidation(this.shared.messages, part)).catch((e: unknown) => this.failed(op === 'tag' ? 'deleteByTag' : op, entries[0]?.full, e))
      }
    }
  }

  private readFailed(key: string, e: unknown, operation: CacheOperation = 'get', count = true): undefined {
    const error = storeError(operation, e)
    if (this.shared.readErrors === 'throw') throw error
    this.failed(operation, key, error)
    if (count) this.miss(key, 'store-error')
    return undefined
  }

  // Decodes stored bytes into an entry, or counts the miss and says why.
  // Opens stored bytes (see openEntry), then counts and reports what came of it.
  private async open(
    key: string,
    bytes: Uint8Array | undefined,
    operation: CacheOperation,
    count: boolean,
    drop: () => Promise<unknown> = () => this.shared.store.delete(storeKey(this.prefix, key)),
  ): Promise<Entry | undefined> {
    const opened = await openEntry(this.shared.opener, this.prefix, key, bytes)
    if ('entry' in opened) {
      if (count) this.hit(key, opened.entry.freshUntil, 'store')
      return opened.entry
    }
    if ('storeError' in opened) return this.readFailed(key, opened.storeError, operation, count)
    if (opened.error !== undefined) this.failed(opened.operation ?? operation, key, opened.error)
    if (opened.drop) this.drop(undefined, drop)
    if (count) this.miss(key, opened.miss)
    return undefined
  }

  private miss(key: string, reason: MissReason): void {
    this.observer.counters.misses++
    this.observer.emit('miss', { namespace: this.namespace, key, reason })
  }

  private encode(value: unknown, freshUntil: number | undefined, tags?: ReadonlyMap<string, number>): Promise<EncodedEnvelope> {
    const { version } = this.shared
    return this.shared.codec.encodeEnvelopeAsync(value, { schemaVersion: version === 0 ? undefined : version, freshUntil, tags })
  }

  // The tag stamps of entries about to be written, with their store TTLs (one store round trip for all their tags).
  private stampsFor(tagsOf: ReadonlyArray<readonly string[] | undefined>, ttlsOf: ReadonlyArray<number | undefined>): Promise<Array<ReadonlyMap<string, number> | undefined>> {
    return stampTags(this.shared.store, this.shared.messages, this.shared.tags, this.prefix, tagsOf, ttlsOf)
  }

  // Encodes and stores a value; `stamp` is its tags' generations when the caller read them already,
  // `claim` a loader's claim on the key (nothing is stored once another change superseded it).
  // Resolves the entry kept for readers in this process (see `keepable`), if any.
  private async write(
    key: string,
    value: unknown,
    settings: WriteSettings,
    operation: CacheOperation,
    returnAnyway: boolean,
    stamp?: ReadonlyMap<string, number>,
    claim?: Claim,
  ): Promise<Entry | undefined> {
    const { ttl, staleFor, grace, tags } = settings
    const lifetime = storeTtl(settings)
    if (tags !== undefined && stamp === undefined) {
      try {
        stamp = (await this.stampsFor([tags], [lifetime]))[0]
      } catch (e) {
        this.writeFailed(operation, key, e, returnAnyway)
        return undefined
      }
    }
    // The fresh-until time tells readers when the stale and grace periods start.
    const freshUntil = (staleFor === undefined && grace === undefined) || ttl === undefined ? undefined : Math.ceil(Date.now() + ttl)
    const encoded = await this.encode(value, freshUntil, stamp)
    const kept = await this.keepable(key, encoded, operation)
    if (claim?.superseded) return undefined
    return (await this.put(key, storeKey(this.prefix, key), encoded, lifetime, kept, operation, returnAnyway, { value }, settings.fence)) ? kept : undefined
  }

  // Stores one envelope and mirrors it (see `changed`): claims on the key end before and after the
  // store takes it; the local tier keeps `kept` only if no other change came meanwhile.
  // `counted` is the value for the stats (none for bytes stored as they are); `fence`, the lease
  // the value was loaded under (see StoreSetOptions.fence). Resolves whether it was stored.
  private async put(
    key: string,
    full: string,
    encoded: EncodedEnvelope,
    ttl: number | undefined,
    kept: Entry | undefined,
    operation: CacheOperation,
    returnAnyway: boolean,
    counted?: { value: unknown },
    fence?: StoreFence,
  ): Promise<boolean> {
    const { changes, store } = this.shared
    const own = changes.writing(full)
    try {
      await store.set(full, encoded.bytes, { ttl, fence })
    } catch (e) {
      changes.failed(own)
      this.writeFailed(operation, key, e, returnAnyway)
      return false
    }
    this.wrote(key, counted?.value, encoded, counted !== undefined)
    this.changed('set', [{ full, kept, own, size: encoded.bytes.length, ttl }])
    return true
  }

  // What this process keeps of a value it writes: the entry any process reading the bytes gets (a
  // decoded copy, never the caller's object, through the key's schema), when there is a local tier
  // to keep it in or a schema whose output the caller should get. A value that fails its schema is
  // kept nowhere: it reads as a miss here as everywhere else, and an error event says why.
  // Without a schema the bytes are decoded only when a reader here first asks for the value.
  private async keepable(key: string, encoded: EncodedEnvelope, operation: CacheOperation): Promise<Entry | undefined> {
    const { local, opener } = this.shared
    if (opener.schemaFor?.(key) === undefined) {
      if (local === undefined) return undefined
      const { codec } = opener
      const { freshUntil, tags } = inspect(encoded.bytes)
      return local.lazy(() => codec.decode(encoded.bytes), freshUntil, tags)
    }
    const opened = await openWritten(opener, key, encoded.bytes)
    if ('entry' in opened) return opened.entry
    if ('error' in opened && opened.error !== undefined) this.failed(operation, key, opened.error)
    return undefined
  }

  // Deletes worthless bytes in the background, unless the key was written since they were read.
  private drop(claim: Claim | undefined, remove: () => Promise<unknown>): void {
    Promise.resolve()
      .then(() => (claim?.superseded ? undefined : remove()))
      .catch(() => {})
  }

  // Counts a value written; `hasValue` is false for envelopes stored as they are (no JSON to count).
  private wrote(key: string, value: unknown, { bytes, payloadLength }: EncodedEnvelope, hasValue = true): void {
    const counters = this.observer.counters
    counters.sets++
    counters.bytesStored += bytes.length
    counters.bytesMsgpack += payloadLength
    if (hasValue && counters.bytesJson !== undefined) {
      try {
        counters.bytesJson += utf8.encode(JSON.stringify(value) ?? '').length
      } catch {
        // BigInt, cycles: no JSON equivalent to count.
      }
    }
    this.observer.emit('set', { namespace: this.namespace, key, bytes: bytes.length, payloadBytes: payloadLength })
  }

  private writeFailed(operation: CacheOperation, key: string | undefined, e: unknown, reportOnly: boolean): void {
    const error = storeError(operation, e)
    if (this.shared.writeErrors === 'throw' && !reportOnly) throw error
    this.failed(operation, key, error)
  }

  private failed(operation: CacheOperation, key: string | undefined, e: unknown): void {
    this.observer.counters.errors++
    const error = StowageError.isInstance(e) ? e : storeError(operation, e)
    this.observer.emit('error', { namespace: this.namespace, key, operation, error })
  }
}
