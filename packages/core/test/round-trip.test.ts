import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCodec, decode, decodeAsync, encode, encodeAsync, inspect } from '../src/index.js'
import { sameValue } from './same-value.js'

const codecs = {
  auto: createCodec(),
  never: createCodec({ compress: 'never' }),
  always: createCodec({ compress: 'always', level: 6 }),
}

function roundTrip<T>(value: T, codec = codecs.auto): T {
  return codec.decode<T>(codec.encode(value))
}

describe('round trip of every supported type', () => {
  const cases: Array<[string, unknown]> = [
    ['integers of every width', [0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 53 - 1)]],
    ['floats, NaN, infinities', [0.5, 1.1, -2.75, 1e300, -1e-300, Number.MIN_VALUE, Number.NaN, Infinity, -Infinity, 2 ** 60]],
    ['bigints of any size', [0n, 1n, -1n, 2n ** 64n, -(2n ** 200n), 12345678901234567890123456789n]],
    ['strings in all of Unicode', ['', 'a', 'héllo', '日本語', '😀 emoji', 'x'.repeat(40), 'é'.repeat(100), 'z'.repeat(70_000)]],
    ['null, booleans, undefined', [null, true, false, undefined]],
    ['undefined as a property', { a: undefined, b: 1 }],
    ['dates, to the millisecond', [new Date(0), new Date(1700000000123), new Date(-1), new Date(-62135596800000), new Date(8.64e15), new Date(-8.64e15), new Date(2 ** 34 * 1000 + 5)]],
    ['maps with any keys', new Map<unknown, unknown>([[1, 'one'], ['1', 'string one'], [{ k: 1 }, [1]], [null, undefined], [new Date(5), new Set([1])]])],
    ['sets', new Set([1, 'a', null, { b: 2 }])],
    ['Uint8Array', new Uint8Array([0, 1, 255])],
    ['ArrayBuffer', new Uint8Array([9, 8, 7]).buffer],
    ['DataView', new DataView(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2)],
    ['regexps with flags', [/ab+c/gi, /^\d{3}$/u, new RegExp('a/b', 'm')]],
    ['same-shaped objects (records)', Array.from({ length: 20 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['a'], nested: { deep: { x: i % 3 } } }))],
    ['a dict of same-shaped objects', { alice: { age: 30, admin: true }, bob: { age: 25, admin: false }, carol: { age: 41, admin: false } }],
    ['sorted and reversed integer runs (delta)', [Array.from({ length: 50 }, (_, i) => i * 7 - 100), Array.from({ length: 50 }, (_, i) => 1e15 - i * 1e9)]],
    ['integer runs that are not monotonic', Array.from({ length: 50 }, (_, i) => (i * 7919) % 101)],
    ['empty containers', [[], {}, new Map(), new Set(), new Uint8Array(0)]],
  ]
  for (const [name, value] of cases) {
    it(`keeps ${name}`, () => {
      for (const codec of Object.values(codecs)) expect(sameValue(roundTrip(value, codec), value)).toBeUndefined()
    })
  }

  it('keeps -0 apart from 0, alone and inside records and delta runs', () => {
    expect(Object.is(roundTrip(-0), -0)).toBe(true)
    const rows = roundTrip([{ v: -0 }, { v: 0 }])
    expect(Object.is(rows[0]!.v, -0)).toBe(true)
    expect(Object.is(rows[1]!.v, 0)).toBe(true)
    const run = roundTrip([-0, ...Array.from({ length: 20 }, (_, i) => i)])
    expect(Object.is(run[0], -0)).toBe(true)
  })

  it('keeps invalid dates invalid', () => {
    const back = roundTrip(new Date(Number.NaN))
    expect(back).toBeInstanceOf(Date)
    expect(Number.isNaN(back.getTime())).toBe(true)
  })

  it('keeps every typed array kind with its class and exact length', () => {
    const arrays = [
      new Int8Array([-1, 2]),
      new Uint8ClampedArray([0, 255]),
      new Int16Array([-300, 300]),
      new Uint16Array([65535]),
      new Int32Array([-(2 ** 31)]),
      new Uint32Array([2 ** 32 - 1]),
      new Float32Array([1.5, -0, Number.NaN]),
      new Float64Array([Math.PI, -0, Infinity]),
      new BigInt64Array([-(2n ** 63n)]),
      new BigUint64Array([2n ** 64n - 1n]),
      new Float64Array(new ArrayBuffer(64), 8, 3), // a view inside a bigger buffer
    ]
    for (const a of arrays) {
      const back = roundTrip(a)
      expect(back.constructor).toBe(a.constructor)
      expect(back).toStrictEqual(a.slice())
      expect(back.byteLength).toBe(a.byteLength)
      expect(back.buffer.byteLength).toBe(a.byteLength)
    }
  })

  it('keeps strings with lone surrogates exactly', () => {
    for (const s of ['\ud800', 'a\udc00b', '\udbff\udbff', `${'x'.repeat(20)}\ud83d`]) {
      expect(roundTrip(s)).toBe(s)
      expect(Object.keys(roundTrip({ [s]: 1 }))).toStrictEqual([s])
    }
  })

  it('stores __proto__, constructor and prototype keys as own data and never touches prototypes', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "prototype": 1}')
    for (const value of [hostile, [hostile, hostile], { a: hostile, b: hostile }]) {
      expect(sameValue(roundTrip(value), value)).toBeUndefined()
    }
    const back = roundTrip(hostile)
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype)
    expect(Object.keys(back)).toStrictEqual(['__proto__', 'constructor', 'prototype'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('turns null-prototype objects into plain objects with the same own properties', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 })
    expect(roundTrip(bare)).toStrictEqual({ a: 1 })
  })

  it('keeps key order, including integer-like keys', () => {
    const value = { b: 1, a: 2, 10: 'x', 2: 'y' }
    expect(Object.keys(roundTrip(value))).toStrictEqual(Object.keys(value))
    expect(Object.keys(roundTrip([value, value])[0]!)).toStrictEqual(Object.keys(value))
  })

  it('reads an array hole as undefined (documented)', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(roundTrip([1, , 3])).toStrictEqual([1, undefined, 3])
  })

  it('gives the same value through the async functions, in both directions', async () => {
    // 300 kB of payload: past 256 KiB a browser deflates and inflates with the native streams.
    const big = Array.from({ length: 30_000 }, (_, i) => ({ i, s: `row ${i} ${'x'.repeat(i % 7)}`, even: i % 2 === 0 }))
    for (const value of [big, { small: true }]) {
      const bytes = encode(value)
      const asyncBytes = await encodeAsync(value)
      // The same payload; the deflate bytes may differ (zlib's thread pool gives the same, CompressionStream does not).
      expect(inspect(asyncBytes).payloadLength).toBe(inspect(bytes).payloadLength)
      expect(await decodeAsync(bytes)).toStrictEqual(value)
      expect(await decodeAsync(asyncBytes)).toStrictEqual(value)
      expect(decode(asyncBytes)).toStrictEqual(value)
    }
    expect(inspect(encode(big)).payloadLength).toBeGreaterThan(256 * 1024)
  })
})

const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'prototype', '10', 'a'))
const leaf = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => `x${String.fromCharCode(c)}`),
  fc.double(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.bigInt(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ noInvalidDate: true }),
  fc.uint8Array({ maxLength: 8 }),
  fc.float64Array({ maxLength: 4 }),
  fc.int16Array({ maxLength: 4 }),
  fc.bigInt64Array({ maxLength: 2 }),
)
const { value: anyValue } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object'), tie('map'), tie('set'), tie('rows')),
  array: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5, noNullPrototype: true }),
  map: fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 4 }).map((entries) => new Map(entries)),
  set: fc.array(tie('value'), { maxLength: 4 }).map((items) => new Set(items)),
  // Same-shaped objects, so RECORDS, DICT and DELTA are exercised too.
  rows: fc
    .tuple(fc.uniqueArray(key, { minLength: 1, maxLength: 4 }), fc.integer({ min: 2, max: 12 }))
    .chain(([keys, n]) =>
      fc.array(
        fc.tuple(...keys.map(() => fc.oneof(leaf, fc.integer({ min: 0, max: 5 })))).map((values) => {
          const row: Record<string, unknown> = {}
          keys.forEach((k, i) => Object.defineProperty(row, k, { value: values[i], enumerable: true, writable: true, configurable: true }))
          return row
        }),
        { minLength: n, maxLength: n },
      ),
    ),
}))

describe('property: any value round-trips', () => {
  it('through every compression mode', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        for (const codec of Object.values(codecs)) expect(sameValue(roundTrip(value, codec), value)).toBeUndefined()
      }),
      { numRuns: 300 },
    )
  })
})
