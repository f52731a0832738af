// OpenTelemetry for a cache, through the optional peer @opentelemetry/api: the cache's events as
// metrics (metrics.ts) and a span around each get, set and getOrSet. Only this entry,
// `@stowage/core/otel`, imports the API: the main entry costs nothing without it.
import { metrics, SpanStatusCode, trace, type Attributes, type MeterProvider, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api'
import type { Cache } from '../cache/cache-api.js'
import type { AcceptBytesOptions, Bundle, CacheClaim, CacheEvents, CacheSchema, CacheSetOptions, CacheStats, CacheTtlOptions, GetOrSetOptions } from '../cache/cache-types.js'
import type { Codec } from '../codec/codec.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { Store } from '../stores/store.js'
import { createInstruments, recordMetrics, type CacheInstruments } from './metrics.js'
import { version } from '../../package.json'

/** Options of {@link instrumentCache}. Every field is optional. */
export interface InstrumentOptions {
  /** Where the metrics go. Defaults to the global provider as it is when `instrumentCache` is called: register the SDK first. */
  readonly meterProvider?: MeterProvider
  /** Where the spans go. Defaults to the global provider. */
  readonly tracerProvider?: TracerProvider
  /**
   * Put each key on its span as `stowage.key`. Keys may hold personal data (`user:ada@example.com`);
   * metrics never carry them. Defaults to `false` ({@link DEFAULT_RECORD_KEYS}).
   */
  readonly recordKeys?: boolean
}

/** Default of {@link InstrumentOptions.recordKeys}. */
export const DEFAULT_RECORD_KEYS = false

/** The instrumentation scope of the meter and tracer: the package's name (its version goes with it). */
export const INSTRUMENTATION_SCOPE = '@stowage/core'

interface Telemetry {
  readonly tracer: Tracer
  readonly instruments: CacheInstruments
  readonly recordKeys: boolean
}

// Every method but get, set and getOrSet is handed on as it is; the events are the cache's own.
class InstrumentedCache implements Cache {
  private readonly stop: () => void

  constructor(
    private readonly inner: Cache,
    private readonly telemetry: Telemetry,
    breaker: boolean,
  ) {
    this.stop = recordMetrics(inner, telemetry.instruments, breaker)
  }

  get namespace(): string {
    return this.inner.namespace
  }

  get store(): Store {
    return this.inner.store
  }

  get codec(): Codec {
    return this.inner.codec
  }

  get(key: string): Promise<never> {
    return this.traced('get', key, async (span) => {
      const value = await this.inner.get(key)
      span.setAttribute('stowage.hit', value !== undefined)
      return value as never
    })
  }

  set(key: string, value: unknown, options?: CacheSetOptions): Promise<void> {
    return this.traced('set', key, () => this.inner.set(key, value, options))
  }

  getOrSet(key: string, loader: () => unknown, options?: GetOrSetOptions): Promise<never> {
    return this.traced('getOrSet', key, async (span) => {
      // Only the caller whose loader runs sees `loaded`: a hit, or a caller that joins another's load, does not.
      let loaded = false
      const load = typeof loader === 'function' ? () => ((loaded = true), loader()) : loader
      try {
        return (await this.inner.getOrSet(key, load, options)) as never
      } finally {
        span.setAttribute('stowage.loaded', loaded)
      }
    })
  }

  getBytes(key: string): Promise<Uint8Array | undefined> {
    return this.inner.getBytes(key)
  }

  setBytes(key: string, envelope: Uint8Array, options?: CacheTtlOptions): Promise<void> {
    return this.inner.setBytes(key, envelope, options)
  }

  get version(): number {
    return this.inner.version
  }

  get ttl(): number | undefined {
    return this.inner.ttl
  }

  openBytes(key: string, envelope: Uint8Array | undefined): Promise<never> {
    return this.inner.openBytes(key, envelope) as Promise<never>
  }

  acceptBytes(key: string, envelope: Uint8Array, options?: AcceptBytesOptions): Promise<never> {
    return this.inner.acceptBytes(key, envelope, options) as Promise<never>
  }

  claim(key: string): CacheClaim {
    return this.inner.claim(key)
  }

  delete(key: string): Promise<boolean> {
    return this.inner.delete(key)
  }

  has(key: string): Promise<boolean> {
    return this.inner.has(key)
  }

  getMany(keys: readonly string[]): Promise<never[]> {
    return this.inner.getMany(keys) as Promise<never[]>
  }

  setMany(entries: ReadonlyArray<{ readonly key: string; readonly value: unknown; readonly ttl?: number; readonly tags?: readonly string[] }>): Promise<void> {
    return this.inner.setMany(entries)
  }

  deleteByTag(tags: string | readonly string[]): Promise<void> {
    return this.inner.deleteByTag(tags)
  }

  deleteMany(keys: readonly string[]): Promise<number> {
    return this.inner.deleteMany(keys)
  }

  clear(): Promise<void> {
    return this.inner.clear()
  }

  bundle<V = unknown>(key: string): Bundle<V> {
    return this.inner.bundle<V>(key)
  }

  withNamespace(name: string): Cache {
    return new InstrumentedCache(this.inner.withNamespace(name), this.telemetry, false)
  }

  stats(): CacheStats {
    return this.inner.stats()
  }

  on<E extends keyof CacheEvents>(event: E, listener: (event: CacheEvents[E]) => void): () => void {
    return this.inner.on(event, listener)
  }

  close(): Promise<void> {
    this.stop()
    return this.inner.close()
  }

  private traced<T>(operation: string, key: string, run: (span: Span) => Promise<T>): Promise<T> {
    const attributes: Attributes = { 'stowage.namespace': this.inner.namespace }
    if (this.telemetry.recordKeys) attributes['stowage.key'] = key
    return this.telemetry.tracer.startActiveSpan(`stowage.cache.${operation}`, { attributes }, async (span) => {
      try {
        return await run(span)
      } catch (e) {
        span.recordException(e instanceof Error ? e : String(e))
        span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) })
        span.setAttribute('error.type', StowageError.isInstance(e) ? e.code : e instanceof Error ? e.name : typeof e)
        throw e
      } finally {
        span.end()
      }
    })
  }
}

/**
 * Instruments a cache with OpenTelemetry: counters of hits, misses, errors and sets, histograms of
 * loader time and of stored and payload sizes (named in `StowageMetric`), and a span around each
 * `get`, `set` and `getOrSet`. Caches from its `withNamespace` are instrumented too. Instrument a
 * cache once: each call records its events again.
 * @param cache - a cache from `createCache`.
 * @param options - see {@link InstrumentOptions}; every field is optional.
 * @returns a cache that does what `cache` does, observed; its `close()` also stops recording.
 * @throws {StowageError} INVALID_ARGUMENT when `cache` is not a cache or a provider is not one.
 */
export function instrumentCache<S extends CacheSchema>(cache: Cache<S>, options: InstrumentOptions = {}): Cache<S> {
  const { meterProvider, tracerProvider, recordKeys = DEFAULT_RECORD_KEYS } = options
  if (typeof (cache as Partial<Cache> | null)?.on !== 'function' || typeof cache.getOrSet !== 'function') {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'instrumentCache needs a cache from createCache')
  }
  if ((meterProvider !== undefined && typeof meterProvider.getMeter !== 'function') || (tracerProvider !== undefined && typeof tracerProvider.getTracer !== 'function')) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'meterProvider needs getMeter and tracerProvider getTracer: pass the SDK providers')
  }
  const telemetry: Telemetry = {
    tracer: (tracerProvider ?? trace).getTracer(INSTRUMENTATION_SCOPE, version),
    instruments: createInstruments((meterProvider ?? metrics).getMeter(INSTRUMENTATION_SCOPE, version)),
    recordKeys: recordKeys === true,
  }
  return new InstrumentedCache(cache as Cache, telemetry, true) as unknown as Cache<S>
}
