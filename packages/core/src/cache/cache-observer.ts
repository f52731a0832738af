// What one namespace tells of its operations: its counters, its events, and how a store's failure
// is handled (thrown or reported, by the cache's readErrors and writeErrors). The façade and its
// helpers report here; nothing here calls back into them.
import type { CacheEvents, CacheOperation, CacheStats, CacheTier, MissReason } from './cache-types.js'
import type { EncodedEnvelope } from '../codec/codec.js'
import { Emitter } from '../events/emitter.js'
import { StowageError } from '../errors/stowage-error.js'
import { storeError } from './cache-errors.js'

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const utf8 = new TextEncoder()

/** How a namespace handles a store's failures (CacheOptions.readErrors and writeErrors), and whether it counts JSON bytes. */
export interface ObserverPolicy {
  readonly readErrors: 'miss' | 'throw'
  readonly writeErrors: 'throw' | 'ignore'
  readonly measureJson: boolean
}

/** The counters and listeners of one cache namespace, and the reports that feed them. */
export class CacheObserver extends Emitter<CacheEvents> {
  readonly counters: Mutable<CacheStats>

  constructor(
    private readonly namespace: string,
    private readonly policy: ObserverPolicy,
  ) {
    super()
    this.counters = {
      hits: 0,
      staleHits: 0,
      misses: 0,
      sets: 0,
      deletes: 0,
      loads: 0,
      errors: 0,
      bytesStored: 0,
      bytesMsgpack: 0,
      bytesJson: policy.measureJson ? 0 : undefined,
    }
  }

  /** A copy of the counters. */
  snapshot(): CacheStats {
    return { ...this.counters }
  }

  /** Counts and tells a hit of `key` in `tier`: stale once past `freshUntil`. */
  hit(key: string, freshUntil: number | undefined, tier: CacheTier): void {
    const stale = freshUntil !== undefined && freshUntil <= Date.now()
    if (stale) this.counters.staleHits++
    else this.counters.hits++
    this.emit('hit', { namespace: this.namespace, key, stale, tier })
  }

  /** Counts and tells a miss of `key`, with its reason. */
  miss(key: string, reason: MissReason): void {
    this.counters.misses++
    this.emit('miss', { namespace: this.namespace, key, reason })
  }

  /**
   * A store's failure to read `key`: reported (and, with `count`, a miss), or thrown.
   * @returns undefined, what the read then answers.
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`.
   */
  readFailed(key: string, e: unknown, operation: CacheOperation = 'get', count = true): undefined {
    const error = storeError(operation, e)
    if (this.policy.readErrors === 'throw') throw error
    this.failed(operation, key, error)
    if (count) this.miss(key, 'store-error')
    return undefined
  }

  /**
   * A store's failure to write: thrown with `writeErrors: 'throw'`, unless `reportOnly`; else reported.
   * @throws {StowageError} STORE_ERROR with `writeErrors: 'throw'` and not `reportOnly`.
   */
  writeFailed(operation: CacheOperation, key: string | undefined, e: unknown, reportOnly: boolean): void {
    const error = storeError(operation, e)
    if (this.policy.writeErrors === 'throw' && !reportOnly) throw error
    this.failed(operation, key, error)
  }

  /** Counts and tells an error: a StowageError as it is, anything else as the store's. */
  failed(operation: CacheOperation, key: string | undefined, e: unknown): void {
    this.counters.errors++
    const error = StowageError.isInstance(e) ? e : storeError(operation, e)
    this.emit('error', { namespace: this.namespace, key, operation, error })
  }

  /** Counts and tells a value written; `hasValue` is false for envelopes stored as they are (no JSON to count). */
  wrote(key: string, value: unknown, { bytes, payloadLength }: EncodedEnvelope, hasValue = true): void {
    const counters = this.counters
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
    this.emit('set', { namespace: this.namespace, key, bytes: bytes.length, payloadBytes: payloadLength })
  }
}
