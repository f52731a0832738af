// RECORDS as the decoder reads them (FORMAT.md §2): tables of other sizes and shapes one after
// another, DELTA and nested RECORDS columns, and the boundary rules: a column of another length,
// an object for a column or empty DELTA data is CORRUPT, and counts and limits are those of
// reading each column as a whole array (a limit passed in a later column is reported first).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCodec, decode, StowageErrorCode, type StowageError } from '../src/index.js'
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
