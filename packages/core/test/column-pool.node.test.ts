// On Node the decoder reads the columns of large RECORDS (4,096 rows and more) into arrays it keeps
// from one decode to the next (column-pool.ts). What must hold: values come out exactly, whatever
// was decoded before; no decoded value is kept alive by the pool, after a decode or a failed one;
// no result shares an array with the pool; the pool holds a bounded number of slots.
import { describe, expect, it } from 'vitest'
import { ColumnPool } from '../src/codec/column-pool.js'
import { Decoder } from '../src/codec/decoder.js'
import { platform } from '../src/codec/platform/node.js'
import { createCodec, StowageErrorCode, type StowageError } from '../src/index.js'
import { caught } from './helpers.js'
import { sameValue } from './same-value.js'

const codeOf = (fn: () => unknown) => (caught(fn) as StowageError | undefined)?.code
const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ index: from + i, createdAt: 1_700_000_000_000 + i, nested: { isEven: (from + i) % 2 === 0, label: `r${from + i}` } }))
const ids = (n: number) => Array.from({ length: n }, (_, i) => i * 3)

// Payload bytes of version 1 (no shapes, no string table), built by hand as FORMAT.md §2 says.
const u16 = (n: number) => [n >> 8, n & 0xff]
const u32 = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
const str = (s: string) => [0xa0 | s.length, ...Array.from(s, (c) => c.charCodeAt(0))]
const array16 = (items: number[][]) => [0xdc, ...u16(items.length), ...items.flat()]
// RECORDS of `n` rows (n < 65,536) with keys `keys` and the given column bytes, as an ext32.
function records(n: number, keys: string[], columns: number[][]): Uint8Array {
  const data = [0x90 | (keys.length + 2), 0xcd, ...u16(n), 0x90 | keys.length, ...keys.flatMap(str), ...columns.flat()]
  return new Uint8Array([0xc9, ...u32(data.length), 73, ...data])
}

describe('RECORDS columns kept from one decode to the next (Node)', () => {
  it('decodes large tables of other sizes and shapes one after another, exactly', () => {
    const codec = createCodec({ compress: 'never' })
    const values: unknown[] = [rows(5000), rows(4096, 7), Array.from({ length: 6000 }, (_, i) => ({ a: i, b: `x${i}` })), rows(9000, 1000), rows(4100)]
    const decoded = values.map((value) => codec.decode(codec.encode(value)))
    // Checked after all the decodes: an earlier result must not have changed under a later one.
    decoded.forEach((value, i) => expect(sameValue(value, values[i])).toBeUndefined())
  })

  it('gives every decode arrays of its own (no result is an array the decoder keeps)', () => {
    const codec = createCodec({ compress: 'never' })
    const value = { outer: rows(5000), ids: ids(5000) }
    const bytes = codec.encode(value)
    const first = codec.decode<{ outer: unknown[]; ids: number[] }>(bytes)
    const second = codec.decode<{ outer: unknown[]; ids: number[] }>(bytes)
    expect(first.outer).not.toBe(second.outer)
    first.outer.length = 0
    first.ids[0] = -1
    expect(sameValue(codec.decode(bytes), value)).toBeUndefined()
  })

  it('keeps no decoded value in its arrays, after a decode and after a failed one', () => {
    const decoder = new Decoder({ maxDepth: 64, maxItems: 1_000_000, maxWorkPerByte: 1024, extensions: [] }, platform)
    const held = () => (decoder as unknown as { columns: { levels: unknown[][][] } }).columns.levels.flat(2).filter((v) => v !== undefined && v !== 0)
    const n = 5000
    const numbers = array16(Array.from({ length: n }, (_, i) => [0xcd, ...u16(i)]))
    const good = records(n, ['a', 'b'], [numbers, array16(Array.from({ length: n }, () => str('x')))])
    const value = decoder.decode(good, 0, 1, good.length) as Array<{ a: number; b: string }>
    expect(value).toHaveLength(n)
    expect(value[4999]).toEqual({ a: 4999, b: 'x' })
    expect(held()).toEqual([])
    // The second column holds a byte MessagePack does not use: the first column and part of the
    // second were read into the pool before the error.
    const bad = records(n, ['a', 'b'], [numbers, array16([...Array.from({ length: n - 1 }, () => str('x')), [0xc1]])])
    expect(codeOf(() => decoder.decode(bad, 0, 1, bad.length))).toBe(StowageErrorCode.CORRUPT)
    expect(held()).toEqual([])
  })
})

describe('ColumnPool', () => {
  it('hands out the same array for a column while it is large enough, and a larger one when not', () => {
    const pool = new ColumnPool()
    const a = pool.take(0, 0, 10)
    expect(pool.take(0, 0, 5)).toBe(a)
    expect(pool.take(1, 0, 5)).not.toBe(a)
    const b = pool.take(0, 0, 20)
    expect(b).not.toBe(a)
    expect(pool.take(0, 0, 20)).toBe(b)
  })

  it('empties what it hands out on release and clear, and only its own arrays', () => {
    const pool = new ColumnPool()
    const a = pool.take(0, 0, 4)
    a.splice(0, 4, 'p', 'q', 'r', 4)
    pool.release(0, 0, a, 3)
    expect(a.slice(0, 4)).toEqual([0, 0, 0, 4])
    const own = [1, 2, 3]
    pool.release(0, 0, own, 3)
    expect(own).toEqual([1, 2, 3])
    const b = pool.take(2, 5, 2)
    b[0] = 'x'
    a[3] = 'y'
    pool.clear()
    expect([...a, ...b].filter((v) => v !== undefined && v !== 0)).toEqual([])
  })

  it('keeps at most 2^19 slots: past that, columns get arrays of their own', () => {
    const pool = new ColumnPool()
    const big = pool.take(0, 0, (1 << 19) - 1)
    expect(pool.take(0, 0, 10)).toBe(big)
    const other = pool.take(0, 1, 10)
    expect(pool.take(0, 1, 10)).not.toBe(other)
  })
})
