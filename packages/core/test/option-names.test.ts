// A misspelt option is refused, never ignored in silence with its default used (a `tll` that left
// entries to live forever, a `nameSpace` that left a cache on the shared default namespace).
import { describe, expect, it } from 'vitest'
import { checkOptionNames, createCache, createMemoryStore, StowageError, StowageErrorCode } from '../src/index.js'
import { thrown } from './helpers.js'

async function refusedAsync(run: () => Promise<unknown>): Promise<StowageError> {
  const e = await run().then(
    () => undefined,
    (error: unknown) => error,
  )
  if (e === undefined) throw new Error('not refused')
  if (!StowageError.isInstance(e)) throw e
  return e
}

describe('option names', () => {
  it('createCache refuses an option it does not know, naming the one meant', () => {
    for (const [options, message] of [
      [{ tll: 5 }, 'unknown createCache option "tll" (did you mean ttl?)'],
      [{ nameSpace: 'x' }, 'unknown createCache option "nameSpace" (did you mean namespace?)'],
      [{ local: { maxEntires: 10 } }, 'unknown local option "maxEntires" (did you mean maxEntries?)'],
      [{ store: createMemoryStore(), breaker: { failure: 3 } }, 'unknown breaker option "failure" (did you mean failures?)'],
      [{ colour: 'blue' }, 'unknown createCache option "colour"'],
    ] as const) {
      const e = thrown(() => createCache(options as never))
      expect(e.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
      expect(e.message).toBe(message)
    }
    // Every documented option is known.
    const cache = createCache({ store: createMemoryStore(), namespace: 'ok', ttl: 1000, codec: {}, autoDictionary: false, version: 1, migrate: (v) => v, schemas: {}, readErrors: 'miss', writeErrors: 'throw', local: { maxEntries: 10, maxBytes: 1000, ttl: 100, freeze: true, maxTags: 10 }, breaker: { failures: 3, window: 1000, coolDown: 1000, probeTimeout: 1000 }, leaseTime: 100, measureJson: false })
    expect(cache.namespace).toBe('ok')
  })

  it('createMemoryStore, set and getOrSet refuse one as well', async () => {
    expect(thrown(() => createMemoryStore({ maxbytes: 10 } as never)).message).toBe('unknown createMemoryStore option "maxbytes" (did you mean maxBytes?)')
    const cache = createCache({ namespace: 'calls' })
    expect((await refusedAsync(() => cache.set('k', 1, { tll: 1000 } as never))).message).toBe('unknown set option "tll" (did you mean ttl?)')
    expect((await refusedAsync(() => cache.getOrSet('k', () => 1, { stalefor: 10, ttl: 100 } as never))).message).toBe('unknown getOrSet option "stalefor" (did you mean staleFor?)')
    expect(await cache.get('k')).toBeUndefined() // nothing was written
    await cache.set('k', 1, { ttl: 1000, tags: ['t'] })
    expect(await cache.getOrSet('j', () => 2, { ttl: 100, staleFor: 10, grace: 10, softTimeout: 10, hardTimeout: 100, tags: ['t'] })).toBe(2)
  })

  it('checkOptionNames, for store implementations: names nearest by case or by two edits, else none', () => {
    expect(() => checkOptionNames('x', { a: 1 }, ['a', 'b'])).not.toThrow()
    expect(() => checkOptionNames('x', undefined, ['a'])).not.toThrow()
    expect(thrown(() => checkOptionNames('myStore', { TimeOut: 1 }, ['timeout'])).message).toBe('unknown myStore option "TimeOut" (did you mean timeout?)')
    expect(thrown(() => checkOptionNames('myStore', { timout: 1 }, ['timeout'])).message).toBe('unknown myStore option "timout" (did you mean timeout?)')
    expect(thrown(() => checkOptionNames('myStore', { size: 1 }, ['timeout'])).message).toBe('unknown myStore option "size"')
  })
})

describe('a TTL given as a string', () => {
  it('is refused with a message that says it is a string', async () => {
    const cache = createCache({ namespace: 'ttl-string' })
    expect((await refusedAsync(() => cache.set('t', 1, { ttl: '1000' as never }))).message).toBe('ttl must be a positive number of milliseconds, got the string "1000"')
  })
})

describe('option names, more places', () => {
  it('setMany entries, bundle set, and a store handed to createCache in place of its options', async () => {
    const cache = createCache({ namespace: 'more' })
    expect((await refusedAsync(() => cache.setMany([{ key: 'a', value: 1, tll: 5 } as never]))).message).toBe('unknown setMany entry option "tll" (did you mean ttl?)')
    expect(await cache.get('a')).toBeUndefined()
    expect((await refusedAsync(() => cache.bundle('b').set('f', 1, { tll: 5 } as never))).message).toBe('unknown bundle set option "tll" (did you mean ttl?)')
    expect(thrown(() => createCache(createMemoryStore() as never)).message).toBe('createCache takes an options object: pass the store as createCache({ store })')
  })
})
