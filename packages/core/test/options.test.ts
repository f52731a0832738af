// What createCodec says about its options, and values nested near the runtime's call stack.
import { describe, expect, it } from 'vitest'
import { createCodec, StowageError, StowageErrorCode, type CodecOptions } from '../src/index.js'
import { thrown } from './helpers.js'


describe('createCodec options', () => {
  it('refuses an option it does not know, naming the one meant when only its case differs', () => {
    const error = thrown(() => createCodec({ maxdepth: 5 } as unknown as CodecOptions))
    expect(error.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(error.message).toBe('unknown codec option "maxdepth" (did you mean maxDepth?)')
    expect(thrown(() => createCodec({ gzip: true } as unknown as CodecOptions)).message).toBe('unknown codec option "gzip"')
  })

  it("takes a codec's own settled options back (a copy with one change)", () => {
    const codec = createCodec({ maxDepth: 5, level: 3 })
    expect(createCodec({ ...codec.options, maxDepth: 6 }).options).toMatchObject({ maxDepth: 6, level: 3 })
  })

  it("says what level takes: 'auto' or an integer from 0 to 9", () => {
    for (const level of [10, -1, 1.5, 'fast']) {
      const error = thrown(() => createCodec({ level } as unknown as CodecOptions))
      expect(error.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
      expect(error.message).toBe(`level must be 'auto' or an integer from 0 to 9, got ${String(level)}`)
    }
  })
})

describe('values nested near the call stack (maxDepth 10,000)', () => {
  const codec = createCodec({ maxDepth: 10_000 })
  const arrays = (n: number): unknown => {
    let v: unknown = 1
    for (let i = 0; i < n; i++) v = [v]
    return v
  }
  const objects = (n: number): unknown => {
    let v: unknown = 1
    for (let i = 0; i < n; i++) v = { a: v }
    return v
  }

  it('whatever encodes decodes with the same options; what does not is LIMIT_EXCEEDED that does not blame maxDepth', () => {
    for (const make of [arrays, objects]) {
      for (let n = 1_000; n <= 9_000; n += 400) {
        const value = make(n)
        let bytes: Uint8Array
        try {
          bytes = codec.encode(value)
        } catch (e) {
          expect(StowageError.isInstance(e) && e.code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
          expect((e as Error).message).not.toMatch(/deeper than maxDepth/)
          continue
        }
        // (Walked in a loop: a deep equality would itself run out of stack.)
        let back = codec.decode(bytes)
        let depth = 0
        while (typeof back === 'object' && back !== null) {
          back = Array.isArray(back) ? back[0] : (back as { a: unknown }).a
          depth++
        }
        expect([depth, back], `${make.name} ${n}`).toStrictEqual([n, 1])
      }
    }
  })
})
