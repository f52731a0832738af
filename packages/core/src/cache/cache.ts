// The Cache façade (cache-api.ts says what it promises, create-cache.ts builds it): the public
// operations of one namespace, over the tiers, the single flight, the lease, and the claims that
// keep what began before a write from landing after it. Its helpers do the work and report to the
// namespace's observer, none of them calling back into it: reads.ts (the tiers, opening entries),
// writes.ts (encoding, storing, mirroring a change), bytes-io.ts (envelopes in and out as they
// are), bundle.ts (fields under one key).
import type { Cache } from './cache-api.js'
import { CacheObserver } from './cache-observer.js'
import type { AcceptBytesOptions, Bundle, CacheClaim, CacheEvents, CacheSchema, CacheSetOptions, CacheTtlOptions, CacheStats, GetOrSetOptions } from './cache-types.js'
import type { Codec, EncodedEnvelope } from '../codec/codec.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import type { Store } from '../stores/store.js'
import { StowageError } from '../errors/stowage-error.js'
import { checkKey, checkTtl } from '../stores/validate.js'
import { checkOptionNames } from '../errors/option-names.js'
import { checkNamespace, storeKey } from './keys.js'
import type { FlightOptions } from './single-flight.js'
import type { Entry } from './entry-opener.js'
import { claimHandle, type Claim } from './claims.js'
import { underLease, type LeaseRelease } from './lease.js'
import { loaderError, storeError } from './cache-errors.js'
import { loadSettings, SET_OPTION_NAMES, storeTtl, type LoadSettings } from './load-settings.js'
import { checkTags, renewGenerations, tagKey } from './tags.js'
import { Reads } from './reads.js'
import { Writes } from './writes.js'
import { BytesIo } from './bytes-io.js'
import { openBundle } from './bundle.js'
import type { Shared } from './shared.js'

// An entry still fresh: one another process stored, never the stale one that started a refresh.
function fresh(entry: Entry | undefined): Entry | undefined {
  return entry !== undefined && (entry.freshUntil === undefined || entry.freshUntil > Date.now()) ? entry : undefined
}

// A setMany entry: a key and value, and set's options.
const SET_MANY_ENTRY_NAMES = ['key', 'value', ...SET_OPTION_NAMES] as const

/** The cache of one namespace: the public operations, over what its namespaces share. */
export class StowageCache<S extends CacheSchema> implements Cache<S> {
  private readonly prefix: string
  private readonly observer: CacheObserver
  private readonly reads: Reads
  private readonly writes: Writes
  private readonly bytes: BytesIo

  constructor(
    private readonly shared: Shared,
    readonly namespace: string,
  ) {
    this.prefix = `${namespace}:`
    this.observer = new CacheObserver(namespace, shared)
    this.reads = new Reads(shared, this.prefix, this.observer)
    this.writes = new Writes(shared, this.prefix, this.observer)
    this.bytes = new BytesIo(shared, this.prefix, this.reads, this.writes, this.observer)
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

  get ttl(): number | undefined {
    return this.shared.ttl
  }

  async getBytes(key: string): Promise<Uint8Array | undefined> {
    checkKey(key)
    return this.bytes.get(key)
  }

  async setBytes(key: string, envelope: Uint8Array, options?: CacheTtlOptions): Promise<void> {
    checkKey(key)
    await this.bytes.set(key, envelope, options?.ttl ?? this.shared.ttl)
  }

  async openBytes(key: string, envelope: Uint8Array | undefined): Promise<never> {
    checkKey(key)
    // Frozen as `get` and `acceptBytes` would give it, so that a value's being frozen never
    // depends on the path it came by (fetchCached: a stored copy here, a network answer there).
    const frozen = envelope !== undefined && this.shared.local?.keepsFrozen(envelope.length, undefined) === true
    return (await this.reads.open(key, envelope, 'get', true, undefined, frozen))?.value as never
  }

  async acceptBytes(key: string, envelope: Uint8Array, options?: AcceptBytesOptions): Promise<never> {
    checkKey(key)
    return (await this.bytes.accept(key, envelope, options)) as never
  }

  claim(key: string): CacheClaim {
    checkKey(key)
    return claimHandle(this.shared.claims, key, storeKey(this.prefix, key))
  }

  async get(key: string): Promise<never> {
    checkKey(key)
    const found = this.reads.read(key, 'get', true)
    return (found instanceof Promise ? await found : found)?.value as never
  }

  async has(key: string): Promise<boolean> {
    checkKey(key)
    return (await this.reads.read(key, 'get', false)) !== undefined
  }

  async set(key: string, value: unknown, options?: CacheSetOptions): Promise<void> {
    checkKey(key)
    if (options !== undefined) checkOptionNames('set', options, SET_OPTION_NAMES)
    const ttl = options?.ttl ?? this.shared.ttl
    checkTtl(ttl)
    const tags = options?.tags === undefined ? undefined : checkTags(options.tags)
    this.shared.changes.starting([storeKey(this.prefix, key)])
    await this.writes.write(key, value, { ttl, tags }, 'set', false)
  }

  async deleteByTag(tags: string | readonly string[]): Promise<void> {
    const keys = checkTags(typeof tags === 'string' ? [tags] : tags).map((tag) => tagKey(this.prefix, tag))
    // A load running now may be of a tagged entry: callers from now on load afresh rather than
    // join it (its value, stamped with the old generation, will read as a miss).
    this.shared.flight.forgetAll(this.prefix)
    // Its answer is on the wire as a read's is: another deletion may overtake it (see TagBook).
    const reading = this.shared.tags.reading(keys)
    let generations: Array<number | undefined>
    try {
      generations = await renewGenerations(this.shared.store, this.shared.messages, keys, this.shared.given)
    } catch (e) {
      this.shared.tags.read(reading)
      this.observer.writeFailed('deleteByTag', undefined, e, false)
      return
    }
    this.shared.tags.renewed(reading, generations)
    this.writes.changed('tag', keys.map((full) => ({ full })))
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key)
    const full = storeKey(this.prefix, key)
    this.shared.changes.starting([full])
    let existed = false
    try {
      existed = await this.shared.store.delete(full)
    } catch (e) {
      this.observer.writeFailed('delete', key, e, false)
    }
    if (existed) {
      this.observer.counters.deletes++
      this.observer.emit('delete', { namespace: this.namespace, key })
    }
    this.writes.changed('delete', [{ full }])
    return existed
  }

  async getMany(keys: readonly string[]): Promise<never[]> {
    keys.forEach(checkKey)
    const { store, local } = this.shared
    // With the in-process tier: one store call for the keys it lacks, where the store tells each
    // entry's TTL with it (a local copy never outlives its store entry); else key by key.
    if (local && store.getManyWithTtl) return (await this.reads.readMany(keys)).map((entry) => entry?.value) as never[]
    if (!store.getMany || local) return Promise.all(keys.map((key) => this.get(key)))
    let found: Array<Uint8Array | undefined>
    try {
      found = await store.getMany(keys.map((key) => storeKey(this.prefix, key)))
    } catch (e) {
      return keys.map((key) => this.observer.readFailed(key, e)) as never[]
    }
    return Promise.all(keys.map(async (key, i) => (await this.reads.open(key, found[i], 'get', true))?.value)) as Promise<never[]>
  }

  async setMany(entries: ReadonlyArray<{ readonly key: string; readonly value: unknown; readonly ttl?: number; readonly tags?: readonly string[] }>): Promise<void> {
    const tagsOf = entries.map((entry) => {
      checkOptionNames('setMany entry', entry, SET_MANY_ENTRY_NAMES)
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
      stamps = await this.writes.stampsFor(tagsOf, entries.map((e) => e.ttl ?? this.shared.ttl))
    } catch (e) {
      this.observer.writeFailed('set', undefined, e, false)
      return
    }
    const encoded = await Promise.all(entries.map((e, i) => this.writes.encode(e.value, undefined, stamps[i])))
    const kept = await Promise.all(entries.map((e, i) => this.writes.keepable(e.key, encoded[i] as EncodedEnvelope, 'set')))
    const { changes } = this.shared
    const own = fulls.map((full) => changes.writing(full))
    try {
      const writing = store.setMany(entries.map((e, i) => ({ key: fulls[i] as string, value: (encoded[i] as EncodedEnvelope).bytes, ttl: e.ttl ?? this.shared.ttl })))
      for (const full of fulls) this.shared.recent?.record(full, writing)
      await writing
    } catch (e) {
      own.forEach((claim) => changes.failed(claim))
      this.observer.writeFailed('set', undefined, e, false)
      return
    }
    entries.forEach((e, i) => this.observer.wrote(e.key, e.value, encoded[i] as EncodedEnvelope))
    this.writes.changed(
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
      this.observer.writeFailed('delete', undefined, e, false)
    }
    this.observer.counters.deletes += removed
    this.writes.changed('delete', fulls.map((full) => ({ full })))
    return removed
  }

  async clear(): Promise<void> {
    const { store } = this.shared
    // What was read, loaded or received before the clear (a sign-out) never lands after it; other
    // processes delete again what they wrote since it began (see RecentWrites).
    const since = Date.now()
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
      // Every process still drops its copies: they may be all that is left of the entries.
      this.writes.changed('clear', [{ full: this.prefix }], since)
      this.observer.writeFailed('clear', undefined, e, false)
      return
    }
    this.writes.changed('clear', [{ full: this.prefix }], since)
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
      const found = this.reads.read(key, 'getOrSet', true)
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
    return openBundle<V>(key, storeKey(this.prefix, key), this.shared, this.reads, this.writes, this.observer)
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
        const outcome = await underLease(lease, full, leaseTime, async () => fresh(await this.reads.readStore(key, full, 'getOrSet', false)))
        if ('found' in outcome) return outcome.found.value
        release = outcome.release
      }
      // The tags' generations are read before the loader runs: a tag deleted while it loads makes
      // the value it gives a miss, since the value may predate the deletion.
      let stamp: ReadonlyMap<string, number> | undefined
      let unstorable: unknown
      if (settings.tags !== undefined) {
        try {
          stamp = (await this.writes.stampsFor([settings.tags], [storeTtl(settings)]))[0]
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
          this.observer.writeFailed('getOrSet', key, unstorable, true)
          return value
        }
        // As any reader will see it (a copy through the key's schema), when this cache keeps one.
        // Under a lease with a fence: stored only while the lease is still this load's.
        const kept = await this.writes.write(key, value, { ...settings, fence: release?.fence }, 'getOrSet', true, stamp, claim)
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
      if (error !== undefined && (outcome === 'fallback' || outcome === 'late-error')) this.observer.failed(flight.background ? 'refresh' : 'getOrSet', key, loaderError(error))
    })
    // The key changed between the call and now: this load answers its own caller, nobody later.
    if (claim.superseded) this.shared.flight.forget(full)
    return answer
  }
}
