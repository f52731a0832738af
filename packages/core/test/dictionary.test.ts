import { describe, expect, it } from 'vitest'
import { createCodec, DEFAULT_DICTIONARY_SIZE, inspect, StowageError, StowageErrorCode, trainDictionary } from '../src/index.js'
import { caught, crc32 } from './helpers.js'
import { sameValue } from './same-value.js'

const token = (i: number) => ({ userId: `u_${(i * 7919).toString(16)}`, token: (i * 2654435761).toString(16).padStart(32, '0'), scopes: ['read:posts', 'write:comments'], expiresAt: 1767225600000 + i })
const samples = Array.from({ length: 300 }, (_, i) => token(i))

describe('trainDictionary', () => {
  it('is deterministic, respects the size and puts what it found in the samples', () => {
    const a = trainDictionary(samples, { size: 2048 })
    expect(a).toStrictEqual(trainDictionary(samples, { size: 2048 }))
    expect(a.length).toBeGreaterThan(0)
    expect(a.length).toBeLessThanOrEqual(2048)
    expect(trainDictionary(samples).length).toBeLessThanOrEqual(DEFAULT_DICTIONARY_SIZE)
    expect(new TextDecoder('latin1').decode(a)).toContain('write:comments')
  })

  it('refuses bad input with INVALID_ARGUMENT', () => {
    for (const [input, options] of [[[], undefined], ['x', undefined], [samples, { size: 100 }], [samples, { size: 40_000 }], [samples, { size: 1.5 }]] as const) {
      expect((caught(() => trainDictionary(input as never, options as never)) as StowageError).code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })

  it('makes values it never saw smaller, and they read back exactly', () => {
    const dictionary = trainDictionary(samples, { size: 2048 })
    const withDict = createCodec({ dictionaries: [dictionary] })
    const without = createCodec()
    for (let i = 1000; i < 1020; i++) {
      const bytes = withDict.encode(token(i))
      expect(inspect(bytes)).toMatchObject({ compression: 'deflate-raw-dictionary', dictionaryId: crc32(dictionary) })
      expect(bytes.length).toBeLessThan(without.encode(token(i)).length * 0.7)
      expect(sameValue(withDict.decode(bytes), token(i))).toBeUndefined()
    }
  })

  it('reads envelopes of every dictionary it lists, writes with the first, and refuses one it lacks', async () => {
    const old = trainDictionary(samples.slice(0, 100), { size: 1024 })
    const current = trainDictionary(samples.slice(100), { size: 1024 })
    const before = createCodec({ dictionaries: [old] }).encode(token(5000))
    const rotated = createCodec({ dictionaries: [current, old] })
    expect(rotated.decode(before)).toStrictEqual(token(5000))
    expect(inspect(rotated.encode(token(5001))).dictionaryId).toBe(crc32(current))
    const error = caught(() => createCodec().decode(before)) as StowageError
    expect(error.code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    expect(error.message).toContain(crc32(old).toString(16).padStart(8, '0'))
    await expect(createCodec({ dictionaries: [current] }).decodeAsync(before)).rejects.toMatchObject({ code: StowageErrorCode.UNSUPPORTED_TYPE })
  })
})
