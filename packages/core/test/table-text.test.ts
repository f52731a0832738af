// The decoder's string table (table-text.ts): taken front to back, and read in pieces when large,
// so strings and UTF-8 sequences that cross a piece's end must come out as if it were one string.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCodec, decode, StowageError, StowageErrorCode } from '../src/index.js'
import { TABLE_PIECE, TableText } from '../src/codec/table-text.js'
import { caught, sealRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const utf8 = new TextEncoder()
const opened = (text: string) => {
  const table = new TableText()
  table.open(utf8.encode(text))
  return table
}
// Takes the table in strings of the given lengths (repeated), and what is left at the end.
function takeAll(table: TableText, lengths: number[]): string[] {
  const out: string[] = []
  for (let i = 0; !table.used; i++) {
    const next = table.take(Math.min(lengths[i % lengths.length] as number, table.length))
    if (next === undefined) out.push(table.take(1) as string)
    else out.push(next)
  }
  return out
}

describe('TableText', () => {
  it('gives the same strings as substrings of one decoded table, for sequences of every width across each piece end', () => {
    for (const char of ['é', '€', '😀']) {
      for (let shift = 0; shift < 4; shift++) {
        // A multi-byte character starts 0–3 bytes before the end of each piece.
        const text = `${'a'.repeat(TABLE_PIECE - shift - 1)}${char}${'b'.repeat(TABLE_PIECE)}${char}x${char}`.repeat(2)
        for (const lengths of [[1], [7, 1, 300], [TABLE_PIECE - 1], [TABLE_PIECE + 3, 2]]) {
          const taken = takeAll(opened(text), lengths)
          expect(taken.join('')).toBe(text)
          // Each string is the substring of the whole table it stands for.
          let at = 0
          const wrong = taken.filter((s) => {
            at += s.length
            return s !== text.substring(at - s.length, at)
          })
          expect(wrong).toEqual([])
        }
      }
    }
  })

  it('counts the whole table, refuses to take past its end, and says when every unit was taken', () => {
    const text = `${'x'.repeat(TABLE_PIECE * 2)}😀é`
    const table = opened(text)
    expect(table.length).toBe(text.length)
    expect(table.take(text.length + 1)).toBeUndefined()
    expect(table.take(TABLE_PIECE * 2 - 1)).toBe('x'.repeat(TABLE_PIECE * 2 - 1))
    expect(table.take(0)).toBe('')
    expect(table.used).toBe(false)
    expect(table.take(5)).toBeUndefined()
    expect(table.take(4)).toBe('x😀é')
    expect(table.take(0)).toBe('')
    expect(table.used).toBe(true)
    table.clear()
    expect(table.length).toBe(0)
    expect(table.used).toBe(true)
  })

  it('throws on invalid UTF-8 in any piece, and on a sequence cut short at the very end, without harming the next table', () => {
    const good = utf8.encode(`${'a'.repeat(TABLE_PIECE * 3)}é`)
    for (const damage of [10, TABLE_PIECE + 5, TABLE_PIECE * 3]) {
      const bad = good.slice()
      bad[damage] = 0xff
      expect(() => new TableText().open(bad)).toThrow(TypeError)
    }
    expect(() => new TableText().open(good.subarray(0, good.length - 1))).toThrow(TypeError)
    // A 2-byte sequence split over the first piece's end, then cut short: the next table reads clean.
    const split = utf8.encode(`${'a'.repeat(TABLE_PIECE - 1)}é`)
    expect(() => new TableText().open(split.subarray(0, TABLE_PIECE))).toThrow(TypeError)
    expect(opened('fine').take(4)).toBe('fine')
  })

  it('round-trips values whose tables run over several pieces, exactly', () => {
    const codec = createCodec({ compress: 'never' })
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 400 }), { minLength: 200, maxLength: 600 }), fc.array(fc.string({ maxLength: 300 }), { maxLength: 400 }), (texts, ascii) => {
        const value = { texts, ascii, joined: texts.join('') }
        expect(sameValue(codec.decode(codec.encode(value)), value)).toBeUndefined()
      }),
      { numRuns: 15 },
    )
  })

  it('decodes a value whose table is damaged in a later piece as CORRUPT (format 3 and format 4)', () => {
    const codec = createCodec({ compress: 'never' })
    const mostlyText = Array.from({ length: 3000 }, (_, i) => `entry ${i}: ${'é'.repeat(40)}`)
    const mostlyAscii = [...Array.from({ length: 3000 }, (_, i) => `entry ${i}: ${'e'.repeat(40)}`), ...Array.from({ length: 40 }, () => 'é')]
    for (const [value, version] of [[mostlyText, 3], [mostlyAscii, 4]] as const) {
      const bytes = codec.encode(value)
      expect(bytes[1]).toBe(version)
      const payload = new Uint8Array(bytes.subarray(8)) // a copy (on Node, encode hands out a Buffer, whose slice() shares memory)
      payload[TABLE_PIECE * 2 + 17] = 0xff
      const error = caught(() => decode(sealRaw(payload, version))) as StowageError
      expect(error).toBeInstanceOf(StowageError)
      expect(error.code).toBe(StowageErrorCode.CORRUPT)
      expect(sameValue(decode(bytes), value)).toBeUndefined()
    }
  })
})
