// Small inputs that ask for a lot of work, and values that used to be stored wrong: each must end in
// a typed StowageError. Timeouts here only guard against hangs; the speed and memory of each
// refusal are measured in `pnpm bench` (apps/bench/src/hostile-bench.ts).
import { deflateSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import {
  createCodec,
  decode,
  decodeInvalidation,
  DEFAULT_MAX_ITEMS,
  encode,
  encodeInvalidation,
  INVALIDATION_CODEC_OPTIONS,
  inspect,
  MAX_KEYS_PER_MESSAGE,
  splitInvalidation,
  StowageError,
  StowageErrorCode,
  type Extension,
} from '../src/index.js'
import { caught, sealDeflatedRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const codeOf = (fn: () => unknown) => (caught(fn) as StowageError | undefined)?.code
const seal = (payload: Uint8Array) => sealDeflatedRaw(deflateSync(payload, { level: 9 }), payload)
function arrayOf(n: number, fill: number): Uint8Array {
  const payload = new Uint8Array(5 + n).fill(fill)
  payload.set([0xdd, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])
  return payload
}
const OVER = DEFAULT_MAX_ITEMS + 1024

describe('small envelopes that announce a lot of work', () => {
  it('refuses RECORDS announcing more rows than maxItems', { timeout: 10_000 }, () => {
    // ext32 RECORDS: [n, ["a"], column of n zeros]
    const column = arrayOf(OVER, 0)
    const head = [0xc9, 0, 0, 0, 0, 73, 0x93, 0xce, OVER >>> 24, (OVER >>> 16) & 0xff, (OVER >>> 8) & 0xff, OVER & 0xff, 0x91, 0xa1, 0x61]
    const payload = new Uint8Array(head.length + column.length)
    payload.set(head)
    payload.set(column, head.length)
    new DataView(payload.buffer).setUint32(1, payload.length - 6)
    const bytes = seal(payload)
    expect(bytes.length).toBeLessThan(8 * 1024)
    expect(codeOf(() => decode(bytes))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
  })

  it('refuses more empty objects than maxItems, and honours a lower maxItems', { timeout: 10_000 }, () => {
    const bytes = seal(arrayOf(OVER, 0x80))
    expect(codeOf(() => decode(bytes))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    const small = seal(arrayOf(2000, 0x80))
    expect(decode<unknown[]>(small)).toHaveLength(2000)
    expect(codeOf(() => createCodec({ maxItems: 1000 }).decode(small))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
  })

  it('refuses a BIGINT past 1 MiB, both ways', { timeout: 10_000 }, () => {
    const magnitude = 2 * 1024 * 1024
    const payload = new Uint8Array(7 + magnitude).fill(0x5a)
    payload.set([0xc9, 0, 0, 0, 0, 65, 0])
    new DataView(payload.buffer).setUint32(1, magnitude + 1)
    expect(codeOf(() => decode(seal(payload)))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(codeOf(() => encode(1n << BigInt(9 * 1024 * 1024)))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    const big = (1n << 100_000n) - 12345n
    expect(decode(encode(-big))).toBe(-big)
  })

  it('reads a large honest payload whole (the look at its start changes nothing)', { timeout: 10_000 }, () => {
    const value = Array.from({ length: 150_000 }, (_, i) => ({ id: i, label: `row ${i % 97}`, flag: i % 3 === 0 }))
    expect(sameValue(decode(encode(value)), value)).toBeUndefined()
  })

  it('ignores bombs sent as invalidation messages, and splits big batches into messages it reads', { timeout: 10_000 }, () => {
    const messages = createCodec(INVALIDATION_CODEC_OPTIONS)
    expect(decodeInvalidation(messages, seal(arrayOf(OVER, 0x80)))).toBeUndefined()
    expect(decodeInvalidation(messages, seal(arrayOf(16 * 1024, 0x80)))).toBeUndefined()
    const keys = Array.from({ length: MAX_KEYS_PER_MESSAGE * 2 + 1 }, (_, i) => `app:key:${i}`)
    const parts = splitInvalidation({ origin: 'me', op: 'delete', keys })
    expect(parts.map((p) => p.keys.length)).toStrictEqual([MAX_KEYS_PER_MESSAGE, MAX_KEYS_PER_MESSAGE, 1])
    expect(parts.flatMap((p) => decodeInvalidation(messages, encodeInvalidation(messages, p))?.keys)).toStrictEqual(keys)
    expect(decodeInvalidation(messages, encode({ v: 1, origin: 'x', op: 'set', keys: [{ nested: {} }] }))).toBeUndefined()
  })

  it('ignores a compressed invalidation message, even a well-formed one: messages are written uncompressed', () => {
    const messages = createCodec(INVALIDATION_CODEC_OPTIONS)
    const message = { v: 1, origin: 'x', op: 'delete', keys: Array.from({ length: 200 }, (_, i) => `app:key:${i}`) }
    const plain = encodeInvalidation(messages, { origin: 'x', op: 'delete', keys: message.keys })
    expect(inspect(plain).compression).toBe('none')
    expect(decodeInvalidation(messages, plain)?.keys).toStrictEqual(message.keys)
    const deflated = createCodec({ compress: 'always' }).encode(message)
    expect(inspect(deflated).compression).not.toBe('none')
    expect(createCodec(INVALIDATION_CODEC_OPTIONS).decode(deflated)).toStrictEqual(message)
    expect(decodeInvalidation(messages, deflated)).toBeUndefined()
  })
})

describe('encoding values that share objects', () => {
  it('refuses shared references deeper than maxDepth at once, and still tells cycles apart', { timeout: 10_000 }, () => {
    let chain: Record<string, unknown> = { leaf: true }
    for (let i = 0; i < 151; i++) chain = { a: chain, b: chain }
    expect(codeOf(() => encode(chain))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    let dag: Record<string, unknown> = { leaf: true }
    for (let i = 0; i < 26; i++) dag = { a: dag, b: dag }
    for (let i = 0; i < 80; i++) dag = { next: dag }
    expect(codeOf(() => encode(dag))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    // The cycle comes first; telling it from mere depth walks the shared chain once, not 2^151 times.
    const loop: Record<string, unknown> = {}
    loop.self = { back: loop }
    loop.shared = chain
    expect(codeOf(() => encode(loop, { maxDepth: 500 }))).toBe(StowageErrorCode.CYCLE)
  })

  it('stores two references to one object as two copies', () => {
    const shared = { n: 1 }
    const back = decode<{ a: { n: number }; b: { n: number } }>(encode({ a: shared, b: shared }))
    expect(back).toStrictEqual({ a: { n: 1 }, b: { n: 1 } })
    expect(back.a).not.toBe(back.b)
  })
})

describe('values that used to come back as something else', () => {
  class MyMap extends Map<string, number> {}
  class MySet extends Set<number> {}
  class MyArray extends Array<number> {}
  class MyDate extends Date {}
  class MyFloats extends Float64Array {}

  it('refuses subclasses of built-in types, naming the class', () => {
    for (const [value, name] of [
      [new MyMap([['a', 1]]), 'MyMap'],
      [new MySet([1]), 'MySet'],
      [MyArray.from([1, 2]), 'MyArray'],
      [new MyDate(5), 'MyDate'],
      [new MyFloats(2), 'MyFloats'],
    ] as const) {
      const error = caught(() => encode({ nested: [value] })) as StowageError
      expect(error.code, name).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
      expect(error.message).toContain(name)
      expect(error.message).toContain('$.nested[0]')
    }
  })

  it('round-trips a subclass as itself when an extension claims it', () => {
    const ext: Extension<MyMap, Array<[string, number]>> = { type: 5, class: MyMap, encode: (m) => [...m], decode: (entries) => new MyMap(entries) }
    const codec = createCodec({ extensions: [ext] })
    const back = codec.decode(codec.encode({ m: new MyMap([['a', 1]]) })) as { m: MyMap }
    expect(back.m).toBeInstanceOf(MyMap)
    expect([...back.m]).toStrictEqual([['a', 1]])
  })
})

describe('options and error messages', () => {
  it('refuses malformed extensions with INVALID_ARGUMENT saying what is wrong', () => {
    const ok = { type: 1, class: Object, encode: () => 0, decode: () => 0 }
    for (const [extensions, says] of [
      ['not an array', 'must be an array'],
      [[null], 'extensions[0] must be an object'],
      [[42], 'extensions[0] must be an object'],
      [[{ ...ok, type: 64 }], 'extensions[0].type'],
      [[{ ...ok, type: -1 }], 'extensions[0].type'],
      [[{ ...ok, type: 1.5 }], 'extensions[0].type'],
      [[{ ...ok, class: undefined }], 'extensions[0].class must be a function'],
      [[{ ...ok, encode: 'x' }], 'extensions[0].encode must be a function'],
      [[{ ...ok, decode: null }], 'extensions[0].decode must be a function'],
      [[ok, { ...ok }], 'extensions[1] uses type 1'],
    ] as const) {
      const error = caught(() => createCodec({ extensions: extensions as never })) as StowageError
      expect(error.code, says).toBe(StowageErrorCode.INVALID_ARGUMENT)
      expect(error.message).toContain(says)
    }
    expect(codeOf(() => createCodec('fast' as never))).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(codeOf(() => createCodec({ level: 'max' as never }))).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(codeOf(() => createCodec({ dictionaries: [new Uint8Array(40_000)] }))).toBe(StowageErrorCode.INVALID_ARGUMENT)
  })

  it('names where the value it cannot store sits', () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({ id: i, handler: i === 17 ? () => 1 : null }))
    const cases: Array<[unknown, string]> = [
      [{ rows }, '$.rows[17].handler'],
      [{ 'odd key': Symbol('s') }, '$["odd key"]'],
      [{ m: new Map([['k', () => 1]]) }, '$.m<value 0>'],
      [{ s: new Set([1, new WeakMap()]) }, '$.s<member 1>'],
      [() => 1, '$'],
    ]
    for (const [value, path] of cases) {
      const error = caught(() => encode(value)) as StowageError
      expect(error.code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
      expect(error.message).toContain(`at ${path}:`)
    }
    let deep: unknown = 'leaf'
    for (let i = 0; i < 120; i++) deep = { child: deep }
    expect((caught(() => encode({ top: deep })) as StowageError).message).toContain('at $.top.child.child')
  })
})

describe('maxItems counts the same on both sides', () => {
  // The smallest maxItems encode accepts for `value`; decode must accept exactly that, and refuse one less.
  function smallestEncodable(value: unknown): number {
    let lo = 0
    let hi = 1 << 22
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (caught(() => encode(value, { maxItems: mid, compress: 'never' })) === undefined) hi = mid
      else lo = mid + 1
    }
    return lo
  }
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
  const samples: Array<[string, unknown]> = [
    ['records with a nested records column and deltas', rows(50)],
    ['shapes and maps', { a: { x: 1, yy: [1, 2] }, b: { x: 2, yy: [3] }, c: { x: 3, yy: [] }, d: {} }],
    ['a dict of same-shaped objects', { ann: { age: 1, tags: ['x'] }, bob: { age: 2, tags: [] } }],
    ['Map, Set, RegExp and a user-free mix', [new Map<unknown, unknown>([[1, [2, 3]], ['k', new Set([4, 5])]]), /a+/g, [[[]]]]],
  ]
  for (const [name, value] of samples) {
    it(name, () => {
      const limit = smallestEncodable(value)
      const bytes = encode(value, { maxItems: limit, compress: 'never' })
      expect(sameValue(decode(bytes, { maxItems: limit }), value)).toBeUndefined()
      expect(codeOf(() => decode(bytes, { maxItems: limit - 1 }))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    })
  }

  it('a million-row table (W1-1000000) fits the default both ways', { timeout: 30_000 }, () => {
    const value = rows(1_000_000)
    expect(decode<unknown[]>(encode(value))).toHaveLength(1_000_000)
  })
})
