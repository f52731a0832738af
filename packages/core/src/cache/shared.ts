// What every namespace of one cache shares, settled once by createCache (create-cache.ts) and read
// by the façade (cache.ts) and its helpers (reads.ts, writes.ts, bundle.ts, envelope-io.ts).
import type { Codec } from '../codec/codec.js'
import type { DictionaryTrainer } from './dictionary-trainer.js'
import type { Store } from '../stores/store.js'
import type { CircuitBreaker } from './breaker.js'
import type { Changes } from './changes.js'
import type { Claims } from './claims.js'
import type { Opener } from './entry-opener.js'
import type { InvalidationChannel } from './invalidation.js'
import type { LoadLease } from './lease.js'
import type { LocalTier } from './local-tier.js'
import type { RecentWrites } from './recent-writes.js'
import type { SingleFlight } from './single-flight.js'
import type { TagBook } from './tags.js'

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
  /** The writes this process sent lately, when there is a channel (another process's clear may come after them). */
  readonly recent: RecentWrites | undefined
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
  /** Trains the cache's dictionary (`autoDictionary`), when asked for. */
  readonly trainer: DictionaryTrainer | undefined
  unsubscribe: (() => void) | undefined
}
