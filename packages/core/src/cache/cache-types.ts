import type { Codec } from '../codec/codec.js'
import type { AutoDictionaryOptions } from './dictionary-trainer.js'
import type { InvalidationChannel } from './invalidation.js'
import type { CodecOptions } from '../codec/options.js'
import type { Store } from '../stores/store.js'
import type { LocalOptions } from './local-tier.js'
import type { CacheSchemas } from './schemas.js'
import type { LoadLease } from './lease.js'
import type { BreakerOptions, BreakerState } from './breaker.js'
import type { StowageError } from '../errors/stowage-error.js'

/**
 * Optional typing of a cache: key patterns (with `*` for any text) mapped to value types.
 * @example createCache<{ 'user:*': User; 'posts:home': Post[] }>()
 */
export type CacheSchema = Record<string, unknown>

type Pattern<P extends string> = P extends `${infer Head}*${infer Tail}` ? `${Head}${string}${Pattern<Tail>}` : P
type Untyped<S> = string extends keyof S ? true : false

/** The keys a schema allows (any string for an untyped cache). */
export type CacheKey<S extends CacheSchema> = Untyped<S> extends true ? string : { [P in keyof S & string]: Pattern<P> }[keyof S & string]

/** The value type of `K` under a schema (`unknown` for an untyped cache). */
export type CacheValue<S extends CacheSchema, K extends string> = Untyped<S> extends true
  ? unknown
  : { [P in keyof S & string]: K extends Pattern<P> ? S[P] : never }[keyof S & string]

/** What {@link CacheOptions.readErrors} and {@link CacheOptions.writeErrors} choose between. */
export type ReadErrorPolicy = 'miss' | 'throw'
/** See {@link CacheOptions.writeErrors}. */
export type WriteErrorPolicy = 'throw' | 'ignore'

/** Options of `createCache`. Every field is optional. */
export interface CacheOptions {
  /** Where the bytes go. Defaults to a new in-memory store, which `close()` then closes. */
  readonly store?: Store
  /**
   * Prefix of every key as `namespace:key`: segments of letters, digits, `_`, `-` and `.`, joined by
   * `:` (`'app:users'` is the child `users` of `app`). Defaults to `'stowage'` ({@link DEFAULT_NAMESPACE}).
   */
  readonly namespace?: string
  /** TTL of every entry, in ms, unless a call says otherwise. Defaults to none: entries do not expire. */
  readonly ttl?: number
  /** A codec, or options for one. Defaults to the default codec options. */
  readonly codec?: Codec | CodecOptions
  /**
   * Let the cache train a preset dictionary for its small values and write with it: it samples the
   * values it writes, trains once it has enough, stores the dictionary beside the values (where any
   * cache over the store finds it) and names it under `#dict-for:<namespace>`, so that every
   * process of the namespace writes with the same one; it trains again when the values drift. See
   * {@link AutoDictionaryOptions}. `true` takes the defaults. Defaults to `false`.
   */
  readonly autoDictionary?: boolean | AutoDictionaryOptions
  /** Schema version of the values this cache writes (uint32); it travels in each envelope. Defaults to 0. */
  readonly version?: number
  /**
   * Upgrades a value written with an older `version`. Without it, older values are misses.
   * Values written with a newer version are always misses. Defaults to none.
   */
  readonly migrate?: (value: unknown, fromVersion: number) => unknown
  /**
   * Standard Schemas (zod, valibot, arktype, …) by key pattern (`'user:*'`; the first pattern
   * that matches wins): every value read from the store under a matching key is checked, after
   * `migrate`, and returned as the schema outputs it; a value that fails is a miss (`reason:
   * 'invalid'`) plus an `error` event with SCHEMA_MISMATCH, never returned. The same holds in the
   * writing process: a value you `set` (or a loader gives) is read back as the schema outputs it,
   * and one that fails is stored but read as a miss everywhere (an `error` event reports it at the
   * write). With `createCache({ schemas })` the keys and value types come from the schemas.
   */
  readonly schemas?: CacheSchemas
  /** `'miss'`: a store failure on read is a miss plus an `error` event (fail-open); `'throw'`: it rejects. Defaults to `'miss'`. */
  readonly readErrors?: ReadErrorPolicy
  /** `'throw'`: a store failure on write rejects (fail-closed); `'ignore'`: it is an `error` event only. Defaults to `'throw'`. */
  readonly writeErrors?: WriteErrorPolicy
  /**
   * The in-process tier: decoded values kept by reference in front of `store`, so a hit costs a
   * Map lookup (no copy, no decode). Reads from `store` and writes fill it (a write keeps the
   * value as its stored bytes decode, through the key's schema: what every other process reads,
   * never the caller's object); deletes, clears and the `invalidation` channel's messages drop from
   * it, and a read that began before a write never fills it after; a copy never outlives the store
   * entry's remaining TTL (when the store can tell it, see `Store.getWithTtl`) nor `ttl`. Bundles
   * and `getBytes` bypass it. Every hit returns the same object, deep-frozen by default (see
   * {@link LocalOptions.freeze}). `true` for the defaults, `false` for none. Defaults to on when
   * `store` is given and is not the memory store, off otherwise.
   */
  readonly local?: boolean | LocalOptions
  /**
   * A circuit breaker in front of `store`: after `failures` failed calls within `window` ms, calls
   * fail at once for `coolDown` ms (reads are misses, `getOrSet` goes straight to its loader), then
   * one probe call decides. `cache.on('breaker', …)` hears it open, half-open and close. `true`
   * for the defaults (5 failures in 10 s, 5 s cool-down), `false` for none. Defaults to on when
   * `store` is given and is not the memory store, off otherwise.
   */
  readonly breaker?: boolean | BreakerOptions
  /**
   * Stampede protection across processes: a lease shared by the fleet (`createRedisLease` from
   * `@stowage/redis`). Before a `getOrSet` loader runs, the cache takes the lease on the key; the
   * processes that do not get it wait for the holder's value in the store instead of loading too.
   * A lease with a fence (the Redis one) has the holder's write refused once its lease has lapsed
   * and been taken (an `error` event with LEASE_LOST; the caller still gets its value).
   * Within one process, concurrent calls share one load already. Defaults to none.
   */
  readonly lease?: LoadLease
  /**
   * How long a lease holds, in ms: the longest a loader may run before another process takes over
   * (its holder died or hung), and about how long the others wait. Defaults to 10 000
   * ({@link DEFAULT_LEASE_TIME}).
   */
  readonly leaseTime?: number
  /**
   * A channel shared with the other processes or tabs using the same store: each write, delete
   * and clear is announced there, and their announcements drop this cache's local copies.
   * The channel stays yours (`close()` only unsubscribes). Defaults to none.
   */
  readonly invalidation?: InvalidationChannel
  /** Also count the JSON size of every value set (`stats().bytesJson`); costs a `JSON.stringify` per set. Defaults to `false`. */
  readonly measureJson?: boolean
}

/** Default of {@link CacheOptions.namespace}. */
export const DEFAULT_NAMESPACE = 'stowage'

/** Options of `setBytes` and of a bundle's `set`. */
export interface CacheTtlOptions {
  /** TTL in ms for this entry. Defaults to the cache's `ttl`. */
  readonly ttl?: number
}

/** Options of `acceptBytes`. */
export interface AcceptBytesOptions extends CacheTtlOptions {
  /**
   * The claim taken with this cache's `claim(key)` (one from another cache is refused) when the
   * request for these bytes went out: they are
   * stored only if no write, delete or clear of the key (a sign-out's `clear()`, here or announced
   * by another process) came since; either way the value is returned. `acceptBytes` ends it.
   * Defaults to none: only changes while `acceptBytes` itself runs keep the bytes out.
   */
  readonly claim?: CacheClaim
  /**
   * Keep a deflated envelope inflated (`true`) or as it came (`false`). Inflated, every later read
   * decodes it where it lies; in a browser, where inflating is JavaScript (fflate), that is most of
   * a cold read's cost. It costs the store its MessagePack size, and the kept bytes are no longer
   * the ones received (their ETag differs: keep the server's with `withValidator` first). A payload
   * past 64 KiB is first decoded within the work the received bytes allow (see `maxWorkPerByte`). The
   * envelope's header (schema version, fresh-until, validator) stays. An envelope deflated against
   * a dictionary is always kept as it came. Defaults to inflating when this cache's codec would not
   * have deflated a payload of that size itself (`compress: 'never'`, or `'auto'` under its
   * `compressThreshold`: in browsers and workers, under 256 KiB; on Node, under 1 KiB, which a
   * Stowage server does not deflate; with `dictionaries`, under 64 bytes).
   */
  readonly inflate?: boolean
}

/** A claim on a key, from `cache.claim(key)`: see {@link AcceptBytesOptions.claim}. */
export interface CacheClaim {
  /** The key, relative to the cache's namespace. */
  readonly key: string
  /** Whether a write, delete or clear of the key came after the claim was taken (and before it ended). */
  readonly superseded: boolean
  /** Gives the claim back when no bytes will come (a failed request); `acceptBytes` does it itself. */
  end(): void
}

/** Options of `set` (and of `getOrSet`, which adds its own). */
export interface CacheSetOptions extends CacheTtlOptions {
  /**
   * Tags of the entry (1 to 255 strings of 1 to 255 UTF-8 bytes): `deleteByTag` with any of them
   * deletes it. Tags belong to the cache's namespace. Each write of a tagged entry reads its tags'
   * generations from the store (one round trip), and each read of one from the store checks them
   * (one more). Defaults to none.
   */
  readonly tags?: readonly string[]
}

/** Options of `getOrSet`. */
export interface GetOrSetOptions extends CacheSetOptions {
  /**
   * Stale-while-revalidate: for this many ms after `ttl` the old value is still served while
   * one background refresh runs; a failed refresh keeps it until then. Needs a `ttl`. Defaults to none.
   */
  readonly staleFor?: number
  /**
   * Grace period: for this many ms after `ttl` (and `staleFor`) the old value stays in the store
   * and answers when the loader fails or passes a timeout, instead of the error. Needs a `ttl`.
   * Defaults to none.
   */
  readonly grace?: number
  /**
   * With an old value in its grace period: answer with it after this many ms of loading; the
   * loader goes on and stores its value when it ends. Defaults to none.
   */
  readonly softTimeout?: number
  /**
   * After this many ms of loading, answer with the old value in its grace period, or reject with
   * TIMEOUT when there is none; the loader goes on and stores its value when it ends. Every caller
   * waiting on the key gets the same answer (the first caller's timeouts apply). Defaults to none.
   */
  readonly hardTimeout?: number
}

/** Counters of one cache (one namespace). */
export interface CacheStats {
  /** Reads that found a fresh value. */
  readonly hits: number
  /** Reads that found a stale value (served while refreshing, or by `get`). */
  readonly staleHits: number
  /** Reads that found nothing usable. */
  readonly misses: number
  /** Values written. */
  readonly sets: number
  /** Keys deleted that existed. */
  readonly deletes: number
  /** Loader calls made by `getOrSet`. */
  readonly loads: number
  /** Store failures, corrupt entries and failed refreshes. */
  readonly errors: number
  /** Envelope bytes written (what the store holds for the values set). */
  readonly bytesStored: number
  /** The same values as uncompressed MessagePack payloads. */
  readonly bytesMsgpack: number
  /** The same values as UTF-8 JSON; `undefined` unless `measureJson` is on. */
  readonly bytesJson: number | undefined
}

/** Which cache operation an event or error comes from. */
export type CacheOperation = 'get' | 'set' | 'delete' | 'deleteByTag' | 'clear' | 'getOrSet' | 'refresh' | 'migrate' | 'bundle' | 'train'

/**
 * Related fields under one key (a Redis hash), each field a Stowage envelope, sharing one TTL:
 * see `cache.bundle(key)`. Needs a store with the bundle abilities (memory, Redis).
 */
export interface Bundle<V = unknown> {
  /** The bundle's key, relative to the cache's namespace. */
  readonly key: string
  /** The value of `field`, or `undefined`. @throws {StowageError} as `cache.get`. */
  get<T = V>(field: string): Promise<T | undefined>
  /** Stores `field`; the TTL (the call's, else the cache's, else none) then covers the whole bundle. @throws {StowageError} as `cache.set`. */
  set(field: string, value: V, options?: CacheTtlOptions): Promise<void>
  /** Every field and its value; fields that cannot be decoded are left out (and reported). @throws {StowageError} as `cache.get`. */
  getAll<T = V>(): Promise<Map<string, T>>
  /** Removes `field`; resolves `true` when it existed. @throws {StowageError} as `cache.delete`. */
  delete(field: string): Promise<boolean>
}

/**
 * Why a read was a miss: nothing there; damaged bytes (deleted); intact bytes this reader cannot
 * use, a newer format or an extension or dictionary it lacks (kept); bytes over its `maxBytes`
 * (kept); a schema version it cannot migrate or does not know yet; a value that fails its key's
 * schema (`schemas`); an entry one of whose tags was deleted (`deleteByTag`, dropped); a failed store read.
 */
export type MissReason = 'absent' | 'corrupt' | 'unsupported' | 'too-large' | 'older-version' | 'newer-version' | 'invalid' | 'invalidated' | 'store-error'

/** Where a hit was found: the in-process tier of decoded values, or the store. */
export type CacheTier = 'local' | 'store'

/** The events of a cache and what their listeners receive. */
export interface CacheEvents {
  /** A read found a value: in the in-process tier (`'local'`) or in the store (`'store'`). */
  hit: { readonly namespace: string; readonly key: string; readonly stale: boolean; readonly tier: CacheTier }
  miss: { readonly namespace: string; readonly key: string; readonly reason: MissReason }
  /** A value was stored: `bytes` as stored (the envelope), `payloadBytes` as uncompressed MessagePack. */
  set: { readonly namespace: string; readonly key: string; readonly bytes: number; readonly payloadBytes: number }
  delete: { readonly namespace: string; readonly key: string }
  /** A `getOrSet` loader ended, after `ms`; `error` is what it threw, `undefined` when it gave a value. */
  load: { readonly namespace: string; readonly key: string; readonly ms: number; readonly error: unknown }
  error: { readonly namespace: string; readonly key: string | undefined; readonly operation: CacheOperation; readonly error: StowageError }
  /** The store's circuit breaker changed state; `error` is the failure that opened it. */
  breaker: { readonly state: BreakerState; readonly error: StowageError | undefined }
}
