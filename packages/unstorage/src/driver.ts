// An unstorage driver over a Stowage Store: each item is one Stowage envelope. unstorage hands a
// driver text (its own JSON) for setItem and anything for setItemRaw; both are written by the
// codec and come back as they went in: the text as text, bytes as bytes (no base64 anywhere).
import { createCodec, StowageError, StowageErrorCode, type Codec, type CodecOptions, type Store } from '@stowage/core'
import { defineDriver, type Driver, type StorageMeta, type TransactionOptions } from 'unstorage'

/** Options of {@link stowageDriver}. */
export interface StowageDriverOptions {
  /** The Stowage store that keeps the items (`createRedisStore`, `createMemoryStore`, …). It stays yours: `dispose()` leaves it open. */
  readonly store: Store
  /**
   * Key prefix in the store, as `base:key` (unstorage's `base` option of its Redis driver).
   * `clear()` removes the keys under it, never others. Defaults to none: keys as unstorage names them.
   */
  readonly base?: string
  /**
   * TTL in seconds of every item written without one (unstorage's convention: `setItem(key,
   * value, { ttl })` is in seconds). Nitro 2's cached functions and handlers pass no TTL with
   * stale-while-revalidate on, their default, so without this their entries never leave Redis.
   * Defaults to none: such items do not expire.
   */
  readonly ttl?: number
  /** A codec, or options for one, that writes and reads the envelopes. Defaults to the default codec options. */
  readonly codec?: Codec | CodecOptions
}

/** The name the driver reports (`driver.name`). */
export const DRIVER_NAME = 'stowage'

// Keys read per store round trip by getItems.
const BATCH = 500

function invalid(message: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message)
}

// unstorage's own key rule: `/` and `\` are `:`, no leading or trailing `:`.
function normalize(key: string | undefined): string {
  return (key ?? '').replace(/[/\\]/g, ':').replace(/:+/g, ':').replace(/^:|:$/g, '')
}

function seconds(ttl: unknown, name: string): number | undefined {
  if (ttl === undefined || ttl === null || ttl === 0) return undefined
  if (typeof ttl !== 'number' || !(ttl > 0) || !Number.isFinite(ttl)) throw invalid(`${name} must be a positive number of seconds, got ${String(ttl)}`)
  return ttl
}

/**
 * Creates an unstorage driver over a Stowage store:
 * `createStorage({ driver: stowageDriver({ store: createRedisStore({ url }), ttl: 3600 }) })`.
 *
 * `setItem` stores unstorage's text, `setItemRaw` its value (a `Uint8Array` as bytes, exact), each
 * as one envelope (MessagePack, deflated when it pays); `getItem` and `getItemRaw` give them back
 * as they went in. A TTL (`{ ttl }` in seconds, else the `ttl` option) goes to the store (Redis
 * `PX`); `getMeta` reports the seconds left. `getKeys` and `clear` need the store's `keys` ability
 * (and `clear` uses the store's own `clear` where it has one).
 * @param options - see {@link StowageDriverOptions}; `store` is required.
 * @returns the driver.
 * @throws {StowageError} INVALID_ARGUMENT for a missing store or a bad option. Its methods reject
 *   with STORE_ERROR (a failed store), INVALID_ARGUMENT (a bad TTL; keys or clear on a store that
 *   cannot list its keys), the codec's UNSUPPORTED_TYPE or LIMIT_EXCEEDED for a raw value it cannot
 *   store, and the decode codes (BAD_MAGIC, CHECKSUM_MISMATCH, …) for an item that is not an envelope.
 */
export const stowageDriver: (options: StowageDriverOptions) => Driver<StowageDriverOptions, Store> = defineDriver((options: StowageDriverOptions) => {
  const store = options?.store
  if (typeof store?.name !== 'string' || typeof store.get !== 'function' || typeof store.set !== 'function' || typeof store.delete !== 'function') {
    throw invalid('stowageDriver needs a Stowage Store as its store option (createRedisStore, createMemoryStore, …)')
  }
  const defaultTtl = seconds(options.ttl, 'the ttl option')
  const codec = typeof (options.codec as Codec | undefined)?.decode === 'function' ? (options.codec as Codec) : createCodec(options.codec as CodecOptions | undefined)
  const base = normalize(options.base)
  const root = base ? `${base}:` : ''
  const full = (key: string) => root + key
  const scope = (prefix: string | undefined) => {
    const relative = normalize(prefix)
    return root + (relative ? `${relative}:` : '')
  }
  const ttlOf = (opts: TransactionOptions | undefined) => {
    const ttl = seconds(opts?.ttl, 'ttl') ?? defaultTtl
    return ttl === undefined ? undefined : { ttl: Math.ceil(ttl * 1000) }
  }
  const read = (bytes: Uint8Array | undefined) => (bytes === undefined ? null : codec.decode(bytes))
  const write = (key: string, value: unknown, opts: TransactionOptions | undefined) => store.set(full(key), codec.encode(value), ttlOf(opts))

  async function keysUnder(prefix: string): Promise<string[]> {
    if (!store.keys) throw invalid(`listing keys needs a store that can list them; the ${store.name} store cannot`)
    const keys: string[] = []
    for await (const key of store.keys(prefix)) keys.push(key)
    return keys
  }

  return {
    name: DRIVER_NAME,
    flags: { ttl: true },
    options,
    getInstance: () => store,
    async hasItem(key) {
      return (await store.get(full(key))) !== undefined
    },
    async getItem(key) {
      return read(await store.get(full(key))) as never
    },
    async getItemRaw(key) {
      return read(await store.get(full(key)))
    },
    async getItems(items) {
      const keys = items.map((item) => item.key)
      const values: Array<Uint8Array | undefined> = []
      for (let i = 0; i < keys.length; i += BATCH) {
        const batch = keys.slice(i, i + BATCH).map(full)
        values.push(...(store.getMany ? await store.getMany(batch) : await Promise.all(batch.map((key) => store.get(key)))))
      }
      return keys.map((key, i) => ({ key, value: read(values[i]) as never }))
    },
    async setItem(key, value, opts) {
      await write(key, value, opts)
    },
    async setItemRaw(key, value, opts) {
      await write(key, value, opts)
    },
    async setItems(items, commonOptions) {
      const entries = items.map((item) => ({ key: full(item.key), value: codec.encode(item.value), ttl: ttlOf({ ...commonOptions, ...item.options })?.ttl }))
      if (store.setMany) await store.setMany(entries)
      else await Promise.all(entries.map(({ key, value, ttl }) => store.set(key, value, ttl === undefined ? undefined : { ttl })))
    },
    async removeItem(key) {
      await store.delete(full(key))
    },
    async getMeta(key): Promise<StorageMeta | null> {
      if (store.getWithTtl) {
        const entry = await store.getWithTtl(full(key))
        if (entry === undefined) return null
        return entry.ttl === undefined ? {} : { ttl: Math.ceil(entry.ttl / 1000) }
      }
      return (await store.get(full(key))) === undefined ? null : {}
    },
    async getKeys(prefix) {
      return (await keysUnder(scope(prefix))).map((key) => key.slice(root.length))
    },
    async clear(prefix) {
      const under = scope(prefix)
      if (store.clear) return store.clear(under)
      const keys = await keysUnder(under)
      if (store.deleteMany) await store.deleteMany(keys)
      else await Promise.all(keys.map((key) => store.delete(key)))
    },
    // The store is yours, as a Stowage cache leaves a store it was given: nothing to release here.
    dispose() {},
  }
})
