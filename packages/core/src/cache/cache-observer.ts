import type { CacheEvents, CacheStats } from './cache-types.js'

type Listener<E extends keyof CacheEvents> = (event: CacheEvents[E]) => void
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** The counters and listeners of one cache namespace. */
export class CacheObserver {
  private readonly listeners = new Map<keyof CacheEvents, Set<(event: never) => void>>()
  readonly counters: Mutable<CacheStats>

  constructor(measureJson: boolean) {
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

  on<E extends keyof CacheEvents>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event)
    if (set === undefined) this.listeners.set(event, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
    }
  }

  emit<E extends keyof CacheEvents>(event: E, payload: CacheEvents[E]): void {
    const set = this.listeners.get(event) as Set<Listener<E>> | undefined
    if (set === undefined) return
    for (const listener of set) {
      try {
        listener(payload)
      } catch {
        // An observer must never break the cache it observes: listener errors are dropped.
      }
    }
  }

  snapshot(): CacheStats {
    return { ...this.counters }
  }
}
