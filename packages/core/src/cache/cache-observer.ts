import type { CacheEvents, CacheStats } from './cache-types.js'
import { Emitter } from '../events/emitter.js'

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** The counters and listeners of one cache namespace. */
export class CacheObserver extends Emitter<CacheEvents> {
  readonly counters: Mutable<CacheStats>

  constructor(measureJson: boolean) {
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
      bytesJson: measureJson ? 0 : undefined,
    }
  }

  snapshot(): CacheStats {
    return { ...this.counters }
  }
}
