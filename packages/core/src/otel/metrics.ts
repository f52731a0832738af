// A cache's events as OpenTelemetry metrics: each event adds to a counter or records into a
// histogram. Keys never become attributes: they are unbounded (every key a new time series) and
// may hold personal data.
import type { Counter, Histogram, Meter } from '@opentelemetry/api'
import type { Cache } from '../cache/cache-api.js'

/** The names of the instruments `instrumentCache` records (kinds, units and attributes in the README). */
export const StowageMetric = {
  /** Counter of reads that found a value, by `stowage.namespace`, `stowage.tier` (`local`, `store`) and `stowage.stale`. */
  HITS: 'stowage.cache.hits',
  /** Counter of reads that found nothing usable, by `stowage.namespace` and `stowage.miss.reason`. */
  MISSES: 'stowage.cache.misses',
  /** Counter of store failures, damaged entries and failed refreshes, by `stowage.namespace`, `stowage.operation` and `stowage.error.code`. */
  ERRORS: 'stowage.cache.errors',
  /** Counter of values stored, by `stowage.namespace`. */
  SETS: 'stowage.cache.sets',
  /** Histogram of `getOrSet` loader time in ms, by `stowage.namespace` and `stowage.outcome` (`ok`, `error`). */
  LOAD_DURATION: 'stowage.cache.load.duration',
  /** Histogram of the bytes stored per value (the envelope), by `stowage.namespace`. */
  STORED_SIZE: 'stowage.cache.stored.size',
  /** Histogram of the same values as uncompressed MessagePack, in bytes, by `stowage.namespace`. */
  PAYLOAD_SIZE: 'stowage.cache.payload.size',
  /** Counter of circuit breaker changes, by the state entered: `stowage.breaker.state` (`open`, `half-open`, `closed`). */
  BREAKER_TRANSITIONS: 'stowage.cache.breaker.transitions',
} as const

// The SDK's default buckets (0 to 10 000) suit milliseconds; sizes run from bytes to megabytes.
const SIZE_BUCKETS = [64, 256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216]

/** The instruments of one `instrumentCache` call, shared by the namespaces it reaches. */
export interface CacheInstruments {
  readonly hits: Counter
  readonly misses: Counter
  readonly errors: Counter
  readonly sets: Counter
  readonly loadDuration: Histogram
  readonly storedSize: Histogram
  readonly payloadSize: Histogram
  readonly breakerTransitions: Counter
}

/** Creates the instruments listed in {@link StowageMetric} on `meter`. */
export function createInstruments(meter: Meter): CacheInstruments {
  const bytes = { unit: 'By', advice: { explicitBucketBoundaries: SIZE_BUCKETS } }
  return {
    hits: meter.createCounter(StowageMetric.HITS, { description: 'Cache reads that found a value', unit: '{hit}' }),
    misses: meter.createCounter(StowageMetric.MISSES, { description: 'Cache reads that found nothing usable', unit: '{miss}' }),
    errors: meter.createCounter(StowageMetric.ERRORS, { description: 'Store failures, damaged entries and failed refreshes', unit: '{error}' }),
    sets: meter.createCounter(StowageMetric.SETS, { description: 'Values stored', unit: '{set}' }),
    loadDuration: meter.createHistogram(StowageMetric.LOAD_DURATION, { description: 'Time of getOrSet loaders', unit: 'ms' }),
    storedSize: meter.createHistogram(StowageMetric.STORED_SIZE, { description: 'Bytes stored per value (the envelope)', ...bytes }),
    payloadSize: meter.createHistogram(StowageMetric.PAYLOAD_SIZE, { description: 'Bytes per value as uncompressed MessagePack', ...bytes }),
    breakerTransitions: meter.createCounter(StowageMetric.BREAKER_TRANSITIONS, { description: 'Circuit breaker state changes', unit: '{transition}' }),
  }
}

/**
 * Records the events of one cache namespace into `instruments`. The breaker guards the store all
 * namespaces share, so only one of them (`breaker: true`) should count its changes.
 * @returns a function that stops recording.
 */
export function recordMetrics(cache: Cache, instruments: CacheInstruments, breaker: boolean): () => void {
  const { hits, misses, errors, sets, loadDuration, storedSize, payloadSize, breakerTransitions } = instruments
  const stops = [
    cache.on('hit', (e) => hits.add(1, { 'stowage.namespace': e.namespace, 'stowage.tier': e.tier, 'stowage.stale': e.stale })),
    cache.on('miss', (e) => misses.add(1, { 'stowage.namespace': e.namespace, 'stowage.miss.reason': e.reason })),
    cache.on('error', (e) => errors.add(1, { 'stowage.namespace': e.namespace, 'stowage.operation': e.operation, 'stowage.error.code': e.error.code })),
    cache.on('set', (e) => {
      const attributes = { 'stowage.namespace': e.namespace }
      sets.add(1, attributes)
      storedSize.record(e.bytes, attributes)
      payloadSize.record(e.payloadBytes, attributes)
    }),
    cache.on('load', (e) => loadDuration.record(e.ms, { 'stowage.namespace': e.namespace, 'stowage.outcome': e.error === undefined ? 'ok' : 'error' })),
  ]
  if (breaker) stops.push(cache.on('breaker', (e) => breakerTransitions.add(1, { 'stowage.breaker.state': e.state })))
  return () => stops.forEach((stop) => stop())
}
