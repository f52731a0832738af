// Large values of every type read back as written. A compressed payload of 1 MiB or more is first
// looked at through the inflated start of its stream; a value cut by the end of that start must
// not be read as if it were whole (it once was: typed arrays, UTF-16 strings and BIGINTs came back
// CORRUPT). The values are patterned so that deflate keeps them, and shifted by a filler so the cut
// falls anywhere.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCache, createCodec, decode, encode, inspect } from '../src/index.js'
import { sameValue } from './same-value.js'

type Make = (bytes: number, period: number) => unknown
const pattern = (n: number, period: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i % period))
const typed = <T>(Ctor: { from(items: ArrayLike<number>): T; BYTES_PER_ELEMENT: number }, scale = 1): Make => (bytes, period) => Ctor.from(pattern(Math.floor(bytes / Ctor.BYTES_PER_ELEMENT), period, (i) => i * scale))
const bigTyped = <T>(Ctor: { from(items: ArrayLike<bigint>): T }): Make => (bytes, period) => Ctor.from(pattern(Math.floor(bytes / 8), period, (i) => i).map(BigInt))
const word = (period: number) => Array.from({ length: period % 40 + 1 }, (_, i) => String.fromCharCode(97 + ((i * 7 + period) % 26))).join('')

const kinds: Record<string, Make> = {
  Int8Array: typed(Int8Array),
  Uint8ClampedArray: typed(Uint8ClampedArray),
  Int16Array: typed(Int16Array, 3),
  Uint16Array: typed(Uint16Array, 5),
  Int32Array: typed(Int32Array, -7),
  Uint32Array: typed(Uint32Array, 11),
  Float32Array: typed(Float32Array, 0.25),
  Float64Array: typed(Float64Array, 1.5),
  BigInt64Array: bigTyped(BigInt64Array),
  BigUint64Array: bigTyped(BigUint64Array),
  Uint8Array: typed(Uint8Array),
  ArrayBuffer: (bytes, period) => Uint8Array.from(pattern(bytes, period, (i) => i)).buffer,
  DataView: (bytes, period) => new DataView(Uint8Array.from(pattern(bytes, period, (i) => i)).buffer),
  'ASCII string': (bytes, period) => word(period).repeat(Math.ceil(bytes / (period % 40 + 1))),
  'UTF-8 string': (bytes, period) => `é${word(period)}`.repeat(Math.ceil(bytes / (period % 40 + 3))),
  'string with lone surrogates': (bytes, period) => `\ud800${word(period)}`.repeat(Math.ceil(bytes / 2 / (period % 40 + 2))),
  bigint: (bytes, period) => (1n << BigInt(Math.min(bytes, 1000 * 1024) * 8 - 1)) + BigInt(period),
  'array of numbers': (bytes, period) => pattern(Math.floor(bytes / 5), period, (i) => i * 1000 + 0.5),
  Map: (bytes, period) => new Map(pattern(Math.floor(bytes / 12), period, (i) => i).map((v, i) => [i, `v${v}`])),
  Set: (bytes, period) => new Set(pattern(Math.floor(bytes / 6), period * 1000, (i) => i).map((v, i) => v * 1e6 + i)),
  records: (bytes, period) => pattern(Math.floor(bytes / 8), period, (i) => i).map((v, i) => ({ id: i, v })),
}

const always = createCodec({ compress: 'always' })

describe('large values', () => {
  it('of every type read back as written, wherever the look at the start of the payload cuts them', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(kinds)),
        fc.integer({ min: 1 << 20, max: 3 << 19 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: 300_000 }),
        async (kind, bytes, period, shift) => {
          const value = ['f'.repeat(shift), (kinds[kind] as Make)(bytes, period), 'tail']
          const encoded = always.encode(value)
          expect(sameValue(decode(encoded), value), kind).toBeUndefined()
          expect(sameValue(await always.decodeAsync(encoded), value), kind).toBeUndefined()
        },
      ),
      { numRuns: 20 },
    )
  })

  it('the values of the report read back', () => {
    const cases = [new Float64Array(200_000), new Int32Array(300_000), `\ud800${'x'.repeat(1 << 20)}`, [2n ** 8_000_000n, 'x'.repeat(1e5)]]
    for (const value of cases) {
      const bytes = encode(value)
      expect(inspect(bytes).payloadLength).toBeGreaterThanOrEqual(1 << 20)
      expect(sameValue(decode(bytes), value)).toBeUndefined()
    }
  })

  it('a Cache keeps a large typed array', async () => {
    const cache = createCache({ namespace: 'large' })
    const samples = new Float32Array(400_000)
    await cache.set('s', { samples })
    expect(sameValue(await cache.get('s'), { samples })).toBeUndefined()
  })
})
