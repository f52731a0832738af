import { describe, expect, it } from 'vitest'
import { CodecCache, MAX_CODECS_BY_CONTENT } from '../src/codec/codec-cache.js'
import { createCodec, decode, encode, inspect, StowageErrorCode, type CodecOptions } from '../src/index.js'
import { caught } from './helpers.js'

// A cache whose codecs are real, counting how many it made.
function counted(): { cache: CodecCache; made: CodecOptions[] } {
  const made: CodecOptions[] = []
  return { made, cache: new CodecCache((options) => (made.push(options), createCodec(options))) }
}

describe('codecs of the one-call functions', () => {
  it('are made once for equal options given as fresh objects', () => {
    const { cache, made } = counted()
    const first = cache.get({ compress: 'never' })
    for (let i = 0; i < 100; i++) expect(cache.get({ compress: 'never' })).toBe(first)
    expect(cache.get({ compress: 'never', maxDepth: 5 })).not.toBe(first)
    expect(cache.get({ compress: 'never', dictionaries: [], extensions: [] })).toBe(first)
    expect(made).toHaveLength(2)
  })

  it('keep at most MAX_CODECS_BY_CONTENT by content, dropping the least recently used', () => {
    const { cache, made } = counted()
    const keep = cache.get({ maxDepth: 0 })
    for (let i = 1; i <= MAX_CODECS_BY_CONTENT; i++) {
      cache.get({ maxDepth: i })
      expect(cache.get({ maxDepth: 0 })).toBe(keep) // used again: never the one dropped
    }
    expect(made).toHaveLength(MAX_CODECS_BY_CONTENT + 1)
    cache.get({ maxDepth: 1 }) // dropped to make room
    expect(made).toHaveLength(MAX_CODECS_BY_CONTENT + 2)
  })

  it('match options with extensions or dictionaries by identity', () => {
    const { cache, made } = counted()
    const options: CodecOptions = { extensions: [{ type: 1, class: Date, encode: () => 0, decode: () => new Date(0) }] }
    expect(cache.get(options)).toBe(cache.get(options))
    cache.get({ ...options })
    expect(made).toHaveLength(2)
  })

  it('still refuse bad options on every call, even when an equal-looking valid one was kept', () => {
    expect(inspect(encode('x', { level: 1, compress: 'always' })).compression).toBe('deflate-raw')
    for (let i = 0; i < 2; i++) {
      expect((caught(() => encode('x', { level: '1' as never, compress: 'always' })) as { code?: string }).code).toBe(StowageErrorCode.INVALID_ARGUMENT)
      expect((caught(() => encode('x', { maxItems: Number.NaN })) as { code?: string }).code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })

  it('give the same bytes as a codec made for the options', () => {
    const value = { id: 'evt_1', amount: 2000, lines: [{ id: 'il_1' }, { id: 'il_2' }] }
    for (const options of [{ compress: 'never' }, { compress: 'always', level: 9 }, { schemaVersion: 7 }] as const) {
      const bytes = encode(value, { ...options })
      expect(bytes).toStrictEqual(createCodec(options).encode(value))
      expect(decode(bytes, { ...options })).toStrictEqual(value)
    }
  })
})
