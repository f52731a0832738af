// A Keyv storage adapter over a Stowage Store: every value Keyv hands over (its JSON string, or
// with serialization off its `{ value, expires }` object) is written as one Stowage envelope, and
// read back as the same string or object. The adapter translates calls; it keeps no cache of its own.
import { createCodec, StowageError, StowageErrorCode, type Codec, type CodecOptions, type Store } from '@stowage/core'
import type { KeyvStoreAdapter } from 'keyv'

/** Options of {@link createKeyvStore}. */
export interface KeyvStoreOptions {
  /**
   * Text put before every key Keyv hands over (Keyv's keys already start with its namespace, as
   * in `keyv:user:1`), so that several adapters, or a Stowage cache, can share one store.
   * `clear()` removes the keys under `prefix` plus the Keyv namespace, never others.
   * Defaults to `''` ({@link DEFAULT_KEYV_PREFIX}).
   */
  readonly prefix?: string
  /** A codec, or options for one, that writes and reads the envelopes. Defaults to the default codec options. */
  readonly codec?: Codec | CodecOptions
}

/** Default of {@link KeyvStoreOptions.prefix}. */
export const DEFAULT_KEYV_PREFIX = ''

type Listener = (...args: unknown[]) => void

// Keys read per store round trip while iterating.
const ITERATOR_BATCH = 100

/** The adapter {@link createKeyvStore} returns: Keyv 5's `KeyvStoreAdapter`, over a Stowage {@link Store}. */
export interface KeyvStowageStore extends KeyvStoreAdapter {
  /** The Stowage store underneath. */
  readonly store: Store
  /** The codec that writes and reads the envelopes. */
  readonly codec: Codec
  /** The text before every key (see {@link KeyvStoreOptions.prefix}). */
  readonly prefix: string
}

function isCodec(value: Codec | CodecOptions | undefined): value is Codec {
  return typeof (value as Codec | undefined)?.encode === 'function' && typeof (value as Codec | undefined)?.decode === 'function'
}

function invalid(message: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message)
}

export class KeyvStowage implements KeyvStowageStore {
  // Keyv 5 hands iteration only to an adapter whose `opts.dialect` it lists (sqlite, postgres,
  // mysql, mongo, redis, valkey, etcd), and then calls `iterator(namespace)` for `[key, value]`
  // pairs with the namespace still on the key, as @keyv/redis yields them: so does this one.
  readonly opts: { readonly dialect: 'redis'; readonly store: string } & Record<string, unknown>
  namespace: string | undefined
  private readonly listeners = new Map<string, Listener[]>()
  // Set by withoutKeyvSerialization: Keyv's own parser, for entries written as Keyv's JSON text
  // before its serialization was turned off (Keyv itself then no longer parses a string).
  private keyvText: ((text: string) => unknown) | undefined

  constructor(
    readonly store: Store,
    readonly codec: Codec,
    readonly prefix: string,
  ) {
    this.opts = { dialect: 'redis', store: store.name }
  }

  private key(key: string): string {
    return this.prefix + key
  }

  private encode(value: unknown): Uint8Array {
    return this.codec.encode(value)
  }

  /** For withoutKeyvSerialization: read Keyv's JSON text with `parse` from now on. @internal */
  readKeyvText(parse: ((text: string) => unknown) | undefined): void {
    this.keyvText = parse
  }

  // An entry that does not decode is a miss (and an `error` event), as a Stowage cache treats it.
  // A promise only where Keyv's own parser returns one.
  private decode(key: string, bytes: Uint8Array | undefined): unknown {
    if (bytes === undefined) return undefined
    try {
      const value = this.codec.decode(bytes)
      // A string is always Keyv's JSON text: with serialization off Keyv hands over objects.
      return typeof value === 'string' && this.keyvText !== undefined ? this.keyvText(value) : value
    } catch (e) {
      this.emit('error', StowageError.isInstance(e) ? e : new StowageError(StowageErrorCode.CORRUPT, `the entry under ${JSON.stringify(key)} does not decode`, { cause: e }))
      return undefined
    }
  }

  private ttl(ttl: unknown): number | undefined {
    if (ttl === undefined || ttl === null || ttl === 0) return undefined
    if (typeof ttl !== 'number' || !(ttl > 0) || !Number.isFinite(ttl)) throw invalid(`a Keyv ttl must be a positive number of milliseconds, got ${String(ttl)}`)
    return Math.ceil(ttl)
  }

  private scope(): string {
    return this.prefix + (this.namespace ? `${this.namespace}:` : '')
  }

  async get(key: string): Promise<any> {
    return this.decode(key, await this.store.get(this.key(key)))
  }

  async getMany(keys: string[]): Promise<any[]> {
    const stored = this.store.getMany ? await this.store.getMany(keys.map((key) => this.key(key))) : await Promise.all(keys.map((key) => this.store.get(this.key(key))))
    return Promise.all(stored.map((bytes, i) => this.decode(keys[i] as string, bytes)))
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    const ms = this.ttl(ttl)
    await this.store.set(this.key(key), this.encode(value), ms === undefined ? undefined : { ttl: ms })
    return true
  }

  async setMany(entries: Array<{ key: string; value: unknown; ttl?: number }>): Promise<any> {
    const encoded = entries.map(({ key, value, ttl }) => ({ key: this.key(key), value: this.encode(value), ttl: this.ttl(ttl) }))
    if (this.store.setMany) await this.store.setMany(encoded)
    else await Promise.all(encoded.map(({ key, value, ttl }) => this.store.set(key, value, ttl === undefined ? undefined : { ttl })))
    return entries.map(() => true)
  }

  delete(key: string): Promise<boolean> {
    return this.store.delete(this.key(key))
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    const full = keys.map((key) => this.key(key))
    if (this.store.deleteMany) return (await this.store.deleteMany(full)) > 0
    return (await Promise.all(full.map((key) => this.store.delete(key)))).some(Boolean)
  }

  async has(key: string): Promise<boolean> {
    return (await this.store.get(this.key(key))) !== undefined
  }

  async hasMany(keys: string[]): Promise<boolean[]> {
    const stored = this.store.getMany ? await this.store.getMany(keys.map((key) => this.key(key))) : await Promise.all(keys.map((key) => this.store.get(this.key(key))))
    return stored.map((bytes) => bytes !== undefined)
  }

  async clear(): Promise<void> {
    const scope = this.scope()
    if (this.store.clear) return this.store.clear(scope)
    if (!this.store.keys) throw invalid(`clear() needs a store that can clear or list its keys; the ${this.store.name} store can do neither`)
    const keys: string[] = []
    for await (const key of this.store.keys(scope)) keys.push(key)
    if (this.store.deleteMany) await this.store.deleteMany(keys)
    else await Promise.all(keys.map((key) => this.store.delete(key)))
  }

  async *iterator(namespace?: string): AsyncGenerator<any[], void> {
    if (!this.store.keys) throw invalid(`iteration needs a store that can list its keys; the ${this.store.name} store cannot`)
    const scope = this.prefix + (namespace ? `${namespace}:` : '')
    let batch: string[] = []
    for await (const full of this.store.keys(scope)) {
      batch.push(full)
      if (batch.length === ITERATOR_BATCH) {
        yield* this.read(batch)
        batch = []
      }
    }
    if (batch.length > 0) yield* this.read(batch)
  }

  private async *read(keys: string[]): AsyncGenerator<any[], void> {
    const stored = this.store.getMany ? await this.store.getMany(keys) : await Promise.all(keys.map((key) => this.store.get(key)))
    for (let i = 0; i < keys.length; i++) {
      const full = keys[i] as string
      // A key that expired or was deleted since it was listed is skipped.
      const value = await this.decode(full, stored[i])
      if (value !== undefined) yield [full.slice(this.prefix.length), value]
    }
  }

  // The store is yours (as a Stowage cache leaves a store it was given): Keyv's disconnect() leaves it open.
  async disconnect(): Promise<void> {}

  on(event: string, listener: Listener): this {
    const list = this.listeners.get(event)
    if (list) list.push(listener)
    else this.listeners.set(event, [listener])
    return this
  }

  off(event: string, listener: Listener): this {
    const list = this.listeners.get(event)
    if (list) this.listeners.set(event, list.filter((l) => l !== listener))
    return this
  }

  emit(event: string, ...args: unknown[]): boolean {
    const list = this.listeners.get(event)
    if (!list || list.length === 0) return false
    for (const listener of list) {
      try {
        listener(...args)
      } catch {
        // A listener's failure must not break the call that emitted.
      }
    }
    return true
  }
}

/**
 * Creates a Keyv storage adapter over a Stowage store: `new Keyv({ store: createKeyvStore(store) })`.
 * Whatever Keyv hands over is stored as one envelope (MessagePack, deflated when it pays) and
 * comes back as it went in: Keyv's JSON string, or, with Keyv's serialization off (see
 * `createKeyv`), its `{ value, expires }` object with Dates, Maps, BigInts and bytes intact.
 * TTLs go to the store (Redis `PX`), so entries leave the store when they expire.
 * @param store - any Stowage {@link Store} (`createRedisStore`, `createMemoryStore`, …); it stays
 *   yours: Keyv's `disconnect()` does not close it. `clear()` and iteration need its `clear` or `keys` ability.
 * @param options - see {@link KeyvStoreOptions}.
 * @returns the adapter.
 * @throws {StowageError} INVALID_ARGUMENT for a missing store or a bad option. The adapter's
 *   methods reject with STORE_ERROR (a failed store) and INVALID_ARGUMENT (a bad TTL, a store
 *   without `keys` for iteration), and with the codec's UNSUPPORTED_TYPE, CYCLE or LIMIT_EXCEEDED
 *   for a value it cannot store; an entry that does not decode reads as missing, with an `error` event.
 */
export function createKeyvStore(store: Store, options: KeyvStoreOptions = {}): KeyvStowageStore {
  if (typeof store?.name !== 'string' || typeof store.get !== 'function' || typeof store.set !== 'function' || typeof store.delete !== 'function') {
    throw invalid('createKeyvStore needs a Stowage Store (createRedisStore, createMemoryStore, …)')
  }
  const prefix = options.prefix ?? DEFAULT_KEYV_PREFIX
  if (typeof prefix !== 'string') throw invalid(`prefix must be a string, got ${typeof prefix}`)
  const codec = isCodec(options.codec) ? options.codec : createCodec(options.codec)
  return new KeyvStowage(store, codec, prefix)
}
