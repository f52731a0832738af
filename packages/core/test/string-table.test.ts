import { describe, expect, it } from 'vitest'
import { createCodec, decode, ExtType, inspect, StowageError, StowageErrorCode } from '../src/index.js'
import { caught, sealRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const never = createCodec({ compress: 'never' })
const S = ExtType.STRING
const T = ExtType.TEXT
// A table as a bin 8 or bin 16.
const bin = (table: string) => {
  const bytes = new TextEncoder().encode(table)
  return [...(bytes.length < 0x100 ? [0xc4, bytes.length] : [0xc5, bytes.length >> 8, bytes.length & 0xff]), ...bytes]
}
// A format-3 payload: the table, then the value's bytes.
const v3 = (table: string, ...value: number[]) => sealRaw(new Uint8Array([...bin(table), ...value]), 3)
// A format-4 payload: the ASCII table, the text table, then the value's bytes.
const v4 = (ascii: string, text: string, ...value: number[]) => sealRaw(new Uint8Array([...bin(ascii), ...bin(text), ...value]), 4)
const three = createCodec({ compress: 'never', formatVersion: 3 })
const code = (bytes: Uint8Array) => (caught(() => decode(bytes)) as StowageError).code

describe('formats 3 and 4: the string tables', () => {
  it('writes values with 32 strings or more with tables (format 4 when one is not ASCII, else 3), and small ones as format 2', () => {
    const many = Array.from({ length: 32 }, (_, i) => `s${i}`)
    expect(inspect(never.encode(many)).formatVersion).toBe(3)
    expect(inspect(never.encode([...many.slice(1), 'ß'])).formatVersion).toBe(4)
    expect(inspect(three.encode([...many.slice(1), 'ß'])).formatVersion).toBe(3)
    expect(inspect(never.encode(many.slice(1))).formatVersion).toBe(2)
    expect(inspect(never.encode({ text: 'x'.repeat(20_000) })).formatVersion).toBe(3) // 16 KiB or more
    expect(inspect(never.encode({ text: `é${'e'.repeat(20_000)}` })).formatVersion).toBe(4)
    expect(inspect(never.encode(Array.from({ length: 40 }, () => 1))).formatVersion).toBe(2) // no strings at all
    expect(inspect(createCodec({ compress: 'never', formatVersion: 2 }).encode([...many, 'ß'])).formatVersion).toBe(2)
  })

  it('keeps every string exact: non-ASCII, surrogate pairs, a leading U+FEFF, empty strings, long ones', () => {
    const value = { list: Array.from({ length: 40 }, (_, i) => ['', 'é', '😀', '\uFEFFx', `ü${'u'.repeat(70_000)}`, `n${i}`][i % 6]), map: new Map([['k', 'v']]) }
    for (const [codec, version] of [[never, 4], [three, 3]] as const) {
      const bytes = codec.encode(value)
      expect(inspect(bytes).formatVersion).toBe(version)
      expect(sameValue(never.decode(bytes), value)).toBeUndefined()
    }
  })

  it('writes one table (format 3) when most of the strings are not ASCII anyway, and the same bytes as format 3 writes', () => {
    // World-countries' translations: over one extra UTF-8 byte in 16 (FORMAT.md §2.1).
    const names = { list: Array.from({ length: 60 }, (_, i) => (i % 2 ? `Ελλάδα ${i}` : `Greece ${i}`)) }
    expect(inspect(never.encode(names)).formatVersion).toBe(3)
    expect(never.encode(names)).toStrictEqual(three.encode(names))
    // The same strings among many more ASCII ones get a text table.
    const mostlyAscii = { ...names, urls: Array.from({ length: 200 }, (_, i) => `https://api.example.com/countries/${i}`) }
    expect(inspect(never.encode(mostlyAscii)).formatVersion).toBe(4)
  })

  it('format 4 keeps text strings apart inside extensions of every header size (data of 1 to over 65,535 bytes)', () => {
    // RECORDS, MAP and SET data move when their header is written smaller or larger than the
    // one reserved; the references to text strings inside must move with them.
    for (const rows of [2, 7, 40, 3000, 20_000]) {
      const value = {
        rows: Array.from({ length: rows }, (_, i) => ({ id: i, name: i % 5 === 0 ? `naïve ${i}` : `plain ${i}`, tag: i % 7 === 0 ? '✓' : 'x', url: `https://example.com/items/${i}?page=${i % 9}` })),
        map: new Map(Array.from({ length: rows }, (_, i) => [i, i % 3 ? `v${i}` : `ü${i}`])),
        set: new Set(Array.from({ length: rows }, (_, i) => (i % 4 ? `s${i}` : `😀${i}`))),
        filler: Array.from({ length: 40 }, (_, i) => `filler ${i} `.repeat(20)),
      }
      const bytes = never.encode(value)
      expect(inspect(bytes).formatVersion).toBe(4)
      expect(sameValue(decode(bytes), value), `${rows} rows`).toBeUndefined()
    }
  })

  it('falls back to format 2 for a value whose strings have lone surrogates, even one that pairs up when joined', () => {
    const lone = Array.from({ length: 40 }, (_, i) => (i === 7 ? 'a\uD800' : `s${i}`))
    const pairing = Array.from({ length: 40 }, (_, i) => (i === 7 ? 'a\uD83D' : i === 8 ? '\uDE00b' : `s${i}`))
    for (const value of [lone, pairing]) {
      const bytes = never.encode(value)
      expect(inspect(bytes).formatVersion).toBe(2)
      expect(sameValue(never.decode(bytes), value)).toBeUndefined()
    }
  })

  it('decodes the same value as format 2 from the same data, compressed or not, sync and async', async () => {
    const value = { users: Array.from({ length: 50 }, (_, i) => ({ login: `user${i}`, url: `https://example.com/${i}`, bio: i % 2 ? null : 'café' })) }
    for (const codec of [never, createCodec({ compress: 'always' })]) {
      const bytes = codec.encode(value)
      expect(inspect(bytes).formatVersion).toBe(4)
      expect(sameValue(codec.decode(bytes), value)).toBeUndefined()
      expect(sameValue(await codec.decodeAsync(bytes), value)).toBeUndefined()
      expect(sameValue(codec.decode(await codec.encodeAsync(value)), value)).toBeUndefined()
    }
  })

  it('takes references in order, from fixext 1, 2 and 4 and from ext 8', () => {
    const long = 'x'.repeat(300)
    const bytes = v3(`ab${long}cd`, 0x94, 0xd4, S, 2, 0xd5, S, 1, 44, 0xd6, S, 0, 0, 0, 1, 0xc7, 1, S, 1)
    expect(decode(bytes)).toStrictEqual(['ab', long, 'c', 'd'])
  })

  it('refuses damaged tables and references as CORRUPT', () => {
    expect(code(v3('abc', 0xd4, S, 4))).toBe(StowageErrorCode.CORRUPT) // runs past the table
    expect(code(v3('abcd', 0xd4, S, 3))).toBe(StowageErrorCode.CORRUPT) // the table is not all used
    expect(code(sealRaw(new Uint8Array([0xd4, S, 0]), 2))).toBe(StowageErrorCode.CORRUPT) // a reference in format 2
    expect(code(sealRaw(new Uint8Array([0x91, 0xc0]), 3))).toBe(StowageErrorCode.CORRUPT) // no table first
    expect(code(sealRaw(new Uint8Array([0xc4, 2, 0xc3, 0x28, 0xd4, S, 1]), 3))).toBe(StowageErrorCode.CORRUPT) // not UTF-8
    expect(code(v3('ab', 0x81, 0xd4, S, 1, 0xd4, S, 1))).toBe(StowageErrorCode.CORRUPT) // a reference as a map key
    expect(code(v3('ab', 0x92, 0xc7, 4, ExtType.SHAPE, 0x91, 0xd4, S, 2, 1))).toBe(StowageErrorCode.CORRUPT) // as a shape key
    expect(code(v3('ab', 0xd7, S, 0, 0, 0, 0, 0, 0, 0, 2))).toBe(StowageErrorCode.CORRUPT) // an 8-byte length
    expect(code(v3('ab', 0xd4, S))).toBe(StowageErrorCode.TRUNCATED)
    expect(code(v3('ab', 0xd4, T, 2))).toBe(StowageErrorCode.CORRUPT) // a text reference in format 3
  })

  it('format 4: takes STRING references from the ASCII table and TEXT references from the text table, each in order', () => {
    const bytes = v4('abcd', 'éü😀', 0x95, 0xd4, S, 2, 0xd4, T, 1, 0xd5, T, 0, 3, 0xd6, S, 0, 0, 0, 1, 0xc7, 1, S, 1)
    expect(decode(bytes)).toStrictEqual(['ab', 'é', 'ü😀', 'c', 'd'])
    expect(decode(v4('', 'é', 0xd4, T, 1))).toBe('é')
    expect(decode(v4('a', '', 0xd4, S, 1))).toBe('a')
  })

  it('format 4: refuses damaged tables and references as CORRUPT', () => {
    expect(code(v4('aé', '', 0xd4, S, 2))).toBe(StowageErrorCode.CORRUPT) // the ASCII table is not ASCII
    expect(code(v4('a', 'é', 0xd4, S, 1))).toBe(StowageErrorCode.CORRUPT) // the text table is not all used
    expect(code(v4('a', 'é', 0xd4, S, 1, 0xd4, T, 2))).toBe(StowageErrorCode.CORRUPT) // runs past the text table
    expect(code(v4('a', 'é', 0x81, 0xd4, T, 1, 0xd4, S, 1))).toBe(StowageErrorCode.CORRUPT) // a text reference as a map key
    expect(code(v4('ab', 'é', 0x92, 0xc7, 4, ExtType.SHAPE, 0x91, 0xd4, T, 1, 0xd4, S, 2))).toBe(StowageErrorCode.CORRUPT) // as a shape key
    expect(code(sealRaw(new Uint8Array([...bin('a'), 0xd4, S, 1]), 4))).toBe(StowageErrorCode.CORRUPT) // no text table
    expect(code(sealRaw(new Uint8Array([...bin('a'), 0xc4, 2, 0xc3, 0x28, 0xd4, S, 1]), 4))).toBe(StowageErrorCode.CORRUPT) // text table not UTF-8
    expect(code(v4('a', 'é', 0xd4, T))).toBe(StowageErrorCode.TRUNCATED)
  })
})
