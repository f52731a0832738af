// RECORDS as the decoder reads them (FORMAT.md §2): tables of other sizes and shapes one after
// another, DELTA and nested RECORDS columns, and the boundary rules: a column of another length,
// an object for a column or empty DELTA data is CORRUPT, and counts and limits are those of
// reading each column as a whole array (a limit passed in a later column is reported first).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCodec, decode, StowageErrorCode, type StowageError } from '../src/index.js'
import { COMPILE_AFTER, Shape } from '../src/codec/shape-book.js'
import { caught, sealRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const codeOf = (fn: () => unknown) => (caught(fn) as StowageError | undefined)?.code
const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ index: from + i, createdAt: 1_700_000_000_000 + i, nested: { isEven: (from + i) % 2 === 0, label: `r${from + i}` } }))

// Payload bytes of version 1 (no shapes, no string table), built by hand as FORMAT.md §2 says.
const str = (s: string) => [0xa0 | s.length, ...Array.from(s, (c) => c.charCodeAt(0))]
const fixarray = (items: number[][]) => [0x90 | items.length, ...items.flat()]
const ext8 = (type: number, data: number[]) => [0xc7, data.length, type, ...data]
const RECORDS = 73
const DELTA = 74
const SHAPE = 77
// RECORDS of `n` rows with keys `keys` and the given column bytes.
const records = (n: number, keys: string[], columns: number[][]) => ext8(RECORDS, [0x90 | (keys.length + 2), n, ...fixarray(keys.map(str)), ...columns.flat()])

describe('RECORDS', () => {
  it('decodes tables of other sizes and shapes one after another, exactly', () => {
    const codec = createCodec({ compress: 'never' })
    const values: unknown[] = [rows(50), rows(3, 7), [{ a: 1, b: 'x' }, { a: 2, b: 'y' }, { a: 3, b: 'z' }], rows(200, 1000), rows(1)]
    const decoded = values.map((value) => codec.decode(codec.encode(value)))
    // Checked after all the decodes: an earlier result must not have changed under a later one.
    decoded.forEach((value, i) => expect(sameValue(value, values[i])).toBeUndefined())
  })

  it('round-trips any array of same-shaped records, decode after decode', () => {
    const codec = createCodec({ compress: 'never' })
    const plain = { noNullPrototype: true }
    const row = fc.record({ id: fc.integer(), name: fc.string(), inner: fc.record({ ok: fc.boolean(), n: fc.double() }, plain) }, plain)
    fc.assert(
      fc.property(fc.array(row, { minLength: 0, maxLength: 40 }), fc.array(row, { minLength: 2, maxLength: 40 }), (a, b) => {
        const da = codec.decode(codec.encode(a))
        const db = codec.decode(codec.encode(b))
        expect(sameValue(da, a)).toBeUndefined()
        expect(sameValue(db, b)).toBeUndefined()
      }),
      { numRuns: 150 },
    )
  })

  it('refuses a column of other length, an object for a column, a nested table of other length and empty DELTA data as CORRUPT', () => {
    const column3 = fixarray([[1], [2], [3]])
    const cases: Array<[string, number[]]> = [
      ['a short column', records(3, ['a', 'b'], [column3, fixarray([[1], [2]])])],
      ['an object (SHAPE) for a column', records(3, ['a', 'b'], [column3, [0x94, ...ext8(SHAPE, fixarray([str('p'), str('q'), str('r')])), 1, 2, 3]])],
      ['nested RECORDS of 2 rows in a table of 3', records(3, ['a', 'b'], [column3, records(2, ['c', 'd'], [fixarray([[1], [2]]), fixarray([[3], [4]])])])],
      ['DELTA data of 2 values in a table of 3', records(3, ['a', 'b'], [column3, ext8(DELTA, fixarray([[1], [2]]))])],
      ['empty DELTA data in a table of 0 rows', records(0, ['a', 'b'], [fixarray([]), ext8(DELTA, fixarray([]))])],
    ]
    for (const [name, payload] of cases) expect(codeOf(() => decode(sealRaw(new Uint8Array(payload)))), name).toBe(StowageErrorCode.CORRUPT)
  })

  it('reads a DELTA column and a nested RECORDS column of the right length', () => {
    const payload = records(3, ['a', 'b'], [ext8(DELTA, fixarray([[10], [1], [1]])), records(3, ['c', 'd'], [fixarray([[1], [2], [3]]), fixarray([[0xc3], [0xc2], [0xc3]])])])
    expect(decode(sealRaw(new Uint8Array(payload)))).toEqual([
      { a: 10, b: { c: 1, d: true } },
      { a: 11, b: { c: 2, d: false } },
      { a: 12, b: { c: 3, d: true } },
    ])
  })

  it('reports a limit passed in a later column before a short column, as a reader of whole arrays does', () => {
    // Column a has 2 values for 3 rows; column b holds 3 values, which passes maxItems.
    const payload = new Uint8Array(records(3, ['a', 'b'], [fixarray([[1], [2]]), fixarray([[1], [2], [3]])]))
    // The payload counts 4 (RECORDS) + 2 (keys) + 2 + 3 items: one less than 11 is refused.
    expect(codeOf(() => decode(sealRaw(payload), { maxItems: 10 }))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(codeOf(() => decode(sealRaw(payload), { maxItems: 11 }))).toBe(StowageErrorCode.CORRUPT)
  })
})

describe('DELTA', () => {
  const codec = createCodec({ compress: 'never' })
  // A DELTA extension outside RECORDS: the decoder sums it as it reads it.
  const delta = (data: number[]) => decode(sealRaw(new Uint8Array(ext8(DELTA, data))))
  const uint64 = (v: number) => [0xcf, ...Array.from({ length: 8 }, (_, i) => Number((BigInt(v) >> BigInt(56 - 8 * i)) & 0xffn))]

  it('sums differences of every integer form, positive and negative fixints among them', () => {
    expect(delta([0x94, 5, 0xff, 0xcd, 0x01, 0x00, 0xd0, 0x80])).toEqual([5, 4, 260, 132])
  })

  it('round-trips sorted integer columns of small and pooled tables, decode after decode', () => {
    // 4,096 rows and more are read into arrays the decoder keeps (column-pool.ts).
    for (const n of [3, 100, 5000, 4096, 6000]) {
      const value = Array.from({ length: n }, (_, i) => ({ id: 1_700_000_000_000 + i * 3, down: n - i * 250, v: i % 7 }))
      expect(sameValue(codec.decode(codec.encode(value)), value), `n = ${n}`).toBeUndefined()
    }
  })

  it('refuses a difference that is not a safe integer and a sum past 2^53 as CORRUPT', () => {
    expect(codeOf(() => delta([0x92, 1, 0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0]))).toBe(StowageErrorCode.CORRUPT) // 0.5
    expect(codeOf(() => delta([0x92, 1, 0xc3]))).toBe(StowageErrorCode.CORRUPT) // true
    expect(codeOf(() => delta([0x93, ...uint64(2 ** 53 - 2), 1, 1]))).toBe(StowageErrorCode.CORRUPT)
    expect(delta([0x92, ...uint64(2 ** 53 - 2), 1])).toEqual([2 ** 53 - 2, 2 ** 53 - 1])
  })

  it('reports a truncation or a limit further on before a bad difference, as a reader of the whole array does', () => {
    // true, then a value that runs past the extension's bytes.
    expect(codeOf(() => delta([0x92, 0xc3, 0xcd, 0x01]))).toBe(StowageErrorCode.TRUNCATED)
    // true, then an array of 3: 1 (DELTA data) + 2 + 3 items.
    const payload = sealRaw(new Uint8Array(ext8(DELTA, [0x92, 0xc3, 0x93, 1, 2, 3])))
    expect(codeOf(() => decode(payload, { maxItems: 4 }))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(codeOf(() => decode(payload, { maxItems: 5 }))).toBe(StowageErrorCode.CORRUPT)
  })

  it('refuses an object (SHAPE) as DELTA data as CORRUPT', () => {
    expect(codeOf(() => delta([0x93, ...ext8(SHAPE, fixarray([str('p'), str('q')])), 1, 2]))).toBe(StowageErrorCode.CORRUPT)
  })

  it('refuses a bad difference in a pooled column, and the same codec then decodes the next table exactly', () => {
    // RECORDS of 5,000 rows { a } (read into the decoder's pooled arrays), column a as DELTA data
    // 0, 1, 1, …; `bad` puts true in place of one difference.
    const n = 5000
    const ext16 = (type: number, data: number[]) => [0xc8, data.length >> 8, data.length & 0xff, type, ...data]
    const table = (bad?: number) => {
      const differences = Array.from({ length: n }, (_, i) => (i === 0 ? 0 : i === bad ? 0xc3 : 1))
      const column = ext16(DELTA, [0xdc, n >> 8, n & 0xff, ...differences])
      return sealRaw(new Uint8Array(ext16(RECORDS, [0x93, 0xcd, n >> 8, n & 0xff, 0x91, ...str('a'), ...column])))
    }
    const good = Array.from({ length: n }, (_, i) => ({ a: i }))
    expect(sameValue(codec.decode(table()), good)).toBeUndefined()
    expect(codeOf(() => codec.decode(table(4000)))).toBe(StowageErrorCode.CORRUPT)
    expect(sameValue(codec.decode(table()), good)).toBeUndefined()
  })
})

describe('Shape.rows', () => {
  const columns = [Array.from({ length: 20 }, (_, i) => i), Array.from({ length: 20 }, (_, i) => `s${i}`)]
  const expected = (keys: [string, string]) => Array.from({ length: 20 }, (_, i) => ({ [keys[0]]: i, [keys[1]]: `s${i}` }))

  it('builds the same rows before, across and after the shape is compiled, and with no compile allowed', () => {
    const shape = new Shape(['a', 'b'])
    // Used COMPILE_AFTER - 8 times before: the table's 8th row is the use that compiles it, and the
    // rest of the table is built by the compiled loop.
    for (let use = 0; use < COMPILE_AFTER - 8; use++) shape.read({ value: () => 0 }, { left: 0 })
    const allowance = { left: 1 }
    expect(shape.rows(columns, 20, [], allowance)).toStrictEqual(expected(['a', 'b']))
    expect(allowance.left).toBe(0)
    expect(shape.rows(columns, 20, [], { left: 0 })).toStrictEqual(expected(['a', 'b']))
    const uncompiled = { left: 0 }
    expect(new Shape(['c', 'd']).rows(columns, 20, [], uncompiled)).toStrictEqual(expected(['c', 'd']))
    // Rows go into the array given, from its start.
    const out = ['x', 'y', 'z']
    expect(new Shape(['a', 'b']).rows(columns, 2, out, { left: 1 })).toBe(out)
    expect(out).toStrictEqual([{ a: 0, b: 's0' }, { a: 1, b: 's1' }, 'z'])
  })

  it('never compiles a shape with a __proto__ key, which stays an own property of every row', () => {
    const allowance = { left: 8 }
    const shape = new Shape(['__proto__', 'b'])
    let rows: Array<Record<string, unknown>> = []
    for (let table = 0; table * 20 <= COMPILE_AFTER; table++) rows = shape.rows(columns, 20, [], allowance) as Array<Record<string, unknown>>
    expect(allowance.left).toBe(8)
    expect(Object.getPrototypeOf(rows[19])).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(rows[19], '__proto__')?.value).toBe(19)
    expect(Object.keys(rows[19] as object)).toStrictEqual(['__proto__', 'b'])
  })
})
