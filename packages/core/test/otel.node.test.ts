// instrumentCache against the real OpenTelemetry SDK: a MeterProvider read on demand and a tracer
// provider exporting to memory, around a real cache with both tiers.
import { SpanStatusCode, type Attributes } from '@opentelemetry/api'
import { DataPointType, MeterProvider, MetricReader, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createCache, createMemoryStore, StowageErrorCode, type Cache, type CacheEvents, type CacheOptions, type Store } from '../src/index.js'
import { instrumentCache, StowageMetric, type InstrumentOptions } from '../src/otel/index.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A reader that collects when asked, as an exporter's periodic reader would on its timer. */
class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

function setup(cacheOptions: CacheOptions = { local: true }, options: InstrumentOptions = {}) {
  const reader = new TestReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const inner = createCache(cacheOptions)
  const cache = instrumentCache(inner, { meterProvider, tracerProvider, ...options })
  const collect = async (): Promise<MetricData[]> => {
    const { resourceMetrics, errors } = await reader.collect()
    expect(errors).toStrictEqual([])
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)
  }
  /** The data points of one instrument, as [attributes, value] pairs. */
  const points = async (name: string): Promise<Array<[Attributes, unknown]>> => {
    const metric = (await collect()).find((m) => m.descriptor.name === name)
    return (metric?.dataPoints ?? []).map((p) => [p.attributes, p.value] as [Attributes, unknown])
  }
  const spans = () => exporter.getFinishedSpans()
  return { inner, cache, collect, points, spans }
}

describe('instrumentCache metrics', () => {
  it('counts hits by tier and staleness, and misses and errors by reason', async () => {
    const store = createMemoryStore()
    const { cache, points } = setup({ store, local: true, namespace: 'app' })
    const writer = createCache({ store, namespace: 'app', local: false })
    await writer.set('from-store', 1)
    expect(await cache.get('from-store')).toBe(1) // store hit, which fills the local tier
    expect(await cache.get('from-store')).toBe(1) // local hit
    expect(await cache.get('from-store')).toBe(1) // local hit
    expect(await cache.get('absent')).toBeUndefined()
    await store.set('app:junk', new Uint8Array([1, 2, 3])) // not an envelope
    expect(await cache.get('junk')).toBeUndefined()
    await cache.getOrSet('soon-stale', () => 'v', { ttl: 10, staleFor: 60_000 })
    await sleep(25)
    expect(await cache.get('soon-stale')).toBe('v')

    expect(await points(StowageMetric.HITS)).toStrictEqual([
      [{ 'stowage.namespace': 'app', 'stowage.tier': 'store', 'stowage.stale': false }, 1],
      [{ 'stowage.namespace': 'app', 'stowage.tier': 'local', 'stowage.stale': false }, 2],
      [{ 'stowage.namespace': 'app', 'stowage.tier': 'local', 'stowage.stale': true }, 1],
    ])
    expect(await points(StowageMetric.MISSES)).toStrictEqual([
      [{ 'stowage.namespace': 'app', 'stowage.miss.reason': 'absent' }, 2], // 'absent' and the first getOrSet
      [{ 'stowage.namespace': 'app', 'stowage.miss.reason': 'corrupt' }, 1],
    ])
    expect(await points(StowageMetric.ERRORS)).toStrictEqual([
      [{ 'stowage.namespace': 'app', 'stowage.operation': 'get', 'stowage.error.code': StowageErrorCode.BAD_MAGIC }, 1],
    ])
  })

  it('records each set: a counter, and histograms of stored and payload bytes that match the set events', async () => {
    const { cache, points } = setup()
    const events: Array<CacheEvents['set']> = []
    cache.on('set', (e) => events.push(e))
    await cache.set('small', { id: 1 })
    await cache.set('large', 'the same sentence again and again; '.repeat(200)) // deflated
    expect(events).toHaveLength(2)
    expect(events[1]!.bytes).toBeLessThan(events[1]!.payloadBytes)

    expect(await points(StowageMetric.SETS)).toStrictEqual([[{ 'stowage.namespace': 'stowage' }, 2]])
    const [storedPoint, ...more] = await points(StowageMetric.STORED_SIZE)
    const [payloadPoint] = await points(StowageMetric.PAYLOAD_SIZE)
    expect(more).toStrictEqual([])
    expect(storedPoint![0]).toStrictEqual({ 'stowage.namespace': 'stowage' })
    const [stored, payload] = [storedPoint![1], payloadPoint![1]] as [Histogram, Histogram]
    expect([stored.count, stored.sum, stored.min, stored.max]).toStrictEqual([2, events[0]!.bytes + events[1]!.bytes, events[0]!.bytes, events[1]!.bytes])
    expect([payload.count, payload.sum]).toStrictEqual([2, events[0]!.payloadBytes + events[1]!.payloadBytes])
    // Byte-sized buckets, not the SDK's millisecond defaults (which end at 10 000).
    expect(stored.buckets.boundaries).toContain(1_048_576)
  })

  it('records loader time with its outcome', async () => {
    const { cache, collect } = setup()
    await cache.getOrSet('slow', async () => (await sleep(30), 'v'))
    await expect(cache.getOrSet('broken', () => Promise.reject(new Error('source down')))).rejects.toThrow('source down')
    const metric = (await collect()).find((m) => m.descriptor.name === StowageMetric.LOAD_DURATION)!
    expect(metric.dataPointType).toBe(DataPointType.HISTOGRAM)
    expect(metric.descriptor.unit).toBe('ms')
    const byOutcome = new Map(metric.dataPoints.map((p) => [p.attributes['stowage.outcome'], p.value as Histogram]))
    expect([...byOutcome.keys()]).toStrictEqual(['ok', 'error'])
    expect(byOutcome.get('ok')!.count).toBe(1)
    expect(byOutcome.get('ok')!.sum).toBeGreaterThanOrEqual(25)
    expect(byOutcome.get('error')!.count).toBe(1)
  })

  it('counts breaker changes once, though every namespace hears the shared breaker', async () => {
    const inner = createMemoryStore()
    let broken = false
    const store: Store = { ...inner, name: 'flaky', get: (key) => (broken ? Promise.reject(new Error('connection refused')) : inner.get(key)) }
    const { cache, points } = setup({ store, local: false, breaker: { failures: 1, window: 1_000, coolDown: 60_000 } })
    cache.withNamespace('users')
    broken = true
    expect(await cache.get('k')).toBeUndefined()
    expect(await points(StowageMetric.BREAKER_TRANSITIONS)).toStrictEqual([[{ 'stowage.breaker.state': 'open' }, 1]])
    expect(await points(StowageMetric.MISSES)).toStrictEqual([[{ 'stowage.namespace': 'stowage', 'stowage.miss.reason': 'store-error' }, 1]])
    expect(await points(StowageMetric.ERRORS)).toStrictEqual([
      [{ 'stowage.namespace': 'stowage', 'stowage.operation': 'get', 'stowage.error.code': StowageErrorCode.STORE_ERROR }, 1],
    ])
  })

  it('instruments the caches of withNamespace under their own namespace, without counting twice', async () => {
    const { cache, points, spans } = setup()
    const users = cache.withNamespace('users')
    await users.set('1', 'Ada')
    expect(await users.get('1')).toBe('Ada')
    expect(await points(StowageMetric.HITS)).toStrictEqual([[{ 'stowage.namespace': 'stowage:users', 'stowage.tier': 'local', 'stowage.stale': false }, 1]])
    expect(await points(StowageMetric.SETS)).toStrictEqual([[{ 'stowage.namespace': 'stowage:users' }, 1]])
    expect(spans().map((s) => [s.name, s.attributes['stowage.namespace']])).toStrictEqual([
      ['stowage.cache.set', 'stowage:users'],
      ['stowage.cache.get', 'stowage:users'],
    ])
    expect(users.withNamespace('admins').namespace).toBe('stowage:users:admins')
  })

  it('stops recording when closed', async () => {
    const store = createMemoryStore()
    const { inner, cache, points } = setup({ store, local: true })
    await cache.get('a')
    await cache.close() // a store you passed stays open
    await inner.get('a')
    expect(await points(StowageMetric.MISSES)).toStrictEqual([[{ 'stowage.namespace': 'stowage', 'stowage.miss.reason': 'absent' }, 1]])
  })
})

describe('instrumentCache spans', () => {
  it('wraps each getOrSet in a span that says whether this call ran the loader', async () => {
    const { cache, spans } = setup()
    const loaders: string[] = []
    const slow = (name: string) => async () => (loaders.push(name), await sleep(20), name)
    // Concurrent misses share the first caller's load: the second loader never runs.
    expect(await Promise.all([cache.getOrSet('k', slow('first')), cache.getOrSet('k', slow('second'))])).toStrictEqual(['first', 'first'])
    expect(await cache.getOrSet('k', slow('third'))).toBe('first') // a hit
    expect(loaders).toStrictEqual(['first'])
    expect(spans().map((s) => [s.name, s.attributes])).toStrictEqual([
      ['stowage.cache.getOrSet', { 'stowage.namespace': 'stowage', 'stowage.loaded': true }],
      ['stowage.cache.getOrSet', { 'stowage.namespace': 'stowage', 'stowage.loaded': false }],
      ['stowage.cache.getOrSet', { 'stowage.namespace': 'stowage', 'stowage.loaded': false }],
    ])
    expect(spans().every((s) => s.status.code === SpanStatusCode.UNSET && s.ended)).toBe(true)
  })

  it('marks a span as failed, with the exception, when the loader throws, and rethrows the same error', async () => {
    const { cache, spans } = setup()
    const failure = new TypeError('source down')
    await expect(cache.getOrSet('k', () => Promise.reject(failure))).rejects.toBe(failure)
    const [span] = spans()
    expect(span!.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: 'source down' })
    expect(span!.attributes).toMatchObject({ 'stowage.loaded': true, 'error.type': 'TypeError' })
    expect(span!.events.map((e) => [e.name, e.attributes?.['exception.message']])).toStrictEqual([['exception', 'source down']])
  })

  it('reports the StowageError code of a failed call, and leaves a bad loader to the cache to refuse', async () => {
    const { cache, spans } = setup()
    await expect(cache.getOrSet('k', 'not a function' as never)).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    expect(spans()[0]!.attributes).toMatchObject({ 'stowage.loaded': false, 'error.type': StowageErrorCode.INVALID_ARGUMENT })
  })

  it('wraps get (saying whether it hit) and set', async () => {
    const { cache, spans } = setup()
    await cache.get('k')
    await cache.set('k', 1)
    await cache.get('k')
    expect(spans().map((s) => [s.name, s.attributes['stowage.hit']])).toStrictEqual([
      ['stowage.cache.get', false],
      ['stowage.cache.set', undefined],
      ['stowage.cache.get', true],
    ])
  })

  it('records keys on spans only with recordKeys, and never on metrics', async () => {
    const key = 'user:ada@example.com'
    for (const recordKeys of [false, true]) {
      const { cache, spans, collect } = setup({ local: true }, { recordKeys })
      await cache.getOrSet(key, () => 'Ada')
      await cache.get(key)
      expect(spans().map((s) => s.attributes['stowage.key'])).toStrictEqual(recordKeys ? [key, key] : [undefined, undefined])
      expect(JSON.stringify(await collect())).not.toContain('ada@example.com')
    }
  })
})

describe('instrumentCache', () => {
  it('returns a cache that hands every other method to the one it wraps', async () => {
    const { inner, cache } = setup({ namespace: 'app', local: true })
    expect([cache.namespace, cache.store, cache.codec]).toStrictEqual([inner.namespace, inner.store, inner.codec])
    await cache.setMany([{ key: 'a', value: 1 }, { key: 'b', value: 2 }])
    expect(await cache.getMany(['a', 'b', 'c'])).toStrictEqual([1, 2, undefined])
    expect(await cache.has('a')).toBe(true)
    expect(await cache.getBytes('a')).toStrictEqual(await inner.getBytes('a'))
    await cache.setBytes('c', (await cache.getBytes('a'))!)
    expect(await inner.get('c')).toBe(1)
    expect(await cache.delete('a')).toBe(true)
    expect(await cache.deleteMany(['b', 'c'])).toBe(2)
    await cache.bundle('post').set('title', 'Hello')
    expect(await inner.bundle('post').get('title')).toBe('Hello')
    const deletes: string[] = []
    cache.on('delete', (e) => deletes.push(e.key))
    await inner.delete('post')
    expect(deletes).toStrictEqual(['post'])
    expect(cache.stats()).toStrictEqual(inner.stats())
    expect(cache.stats().sets).toBe(4)
    await cache.clear()
    expect(await inner.has('post')).toBe(false)
  })

  it('says what the cache it wraps was made with (namespace, version, ttl)', () => {
    const cache = instrumentCache(createCache({ namespace: 'app', version: 3, ttl: 9_000 }))
    expect([cache.namespace, cache.version, cache.ttl]).toStrictEqual(['app', 3, 9_000])
  })

  it('keeps the type of a typed cache', () => {
    type Schema = { 'user:*': { name: string } }
    const cache = instrumentCache(createCache<Schema>())
    expectTypeOf(cache).toEqualTypeOf<Cache<Schema>>()
    // @ts-expect-error: not a key of the schema
    expectTypeOf(() => cache.get('post:1')).toBeFunction()
  })

  it('refuses what is not a cache, or a provider without its method', () => {
    expect(() => instrumentCache({} as Cache)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
    expect(() => instrumentCache(createCache(), { meterProvider: {} as never })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }) as Error)
  })
})
