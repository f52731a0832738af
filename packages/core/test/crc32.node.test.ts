import { crc32 as zlibCrc32 } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crc32, crc32Range, moveCrc } from '../src/codec/crc32.js'

// The JavaScript CRC-32 is what browsers check every envelope with: it must agree with zlib's on
// every length and every alignment of the bytes in their buffer (the word-wise path reads through
// an Int32Array from the first 4-byte-aligned byte).
describe('crc32 (JavaScript)', () => {
  it('agrees with zlib for every length from 0 to 600 bytes at every alignment', () => {
    const buffer = new Uint8Array(700).map((_, i) => (i * 7919 + 13) & 0xff)
    for (let offset = 0; offset < 4; offset++) {
      for (let length = 0; length <= 600; length++) {
        const data = buffer.subarray(offset, offset + length)
        expect(crc32(data)).toBe(zlibCrc32(data))
      }
    }
  })

  it('agrees with zlib on random ranges and when continued from an earlier CRC', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const start = bytes.length === 0 ? 0 : a % bytes.length
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1))
        expect(crc32Range(bytes, start, end)).toBe(zlibCrc32(bytes.subarray(start, end)))
        const head = crc32Range(bytes, 0, start)
        expect(crc32Range(bytes, start, bytes.length, head)).toBe(zlibCrc32(bytes))
      }),
      { numRuns: 300 },
    )
  })
})

// A header replaced in front of a payload gets its CRC from the old one (withValidator,
// withoutTags): it must be the CRC a full pass would give, and stay wrong for damaged bytes.
describe('moveCrc', () => {
  it('gives the CRC of a new head and the same tail, as zlib computes it over the whole', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 5000 }), (oldHead, newHead, tail) => {
        const whole = (head: Uint8Array) => zlibCrc32(Buffer.concat([head, tail]))
        expect(moveCrc(whole(oldHead), zlibCrc32(oldHead), zlibCrc32(newHead), tail.length)).toBe(whole(newHead))
      }),
      { numRuns: 300 },
    )
  })

  it('carries damage over exactly: a CRC wrong by e for the old bytes is wrong by e for the new', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 32 }), fc.uint8Array({ maxLength: 32 }), fc.uint8Array({ maxLength: 2000 }), fc.integer({ min: 1, max: 0xffff_ffff }), (oldHead, newHead, tail, e) => {
        const wrong = (zlibCrc32(Buffer.concat([oldHead, tail])) ^ e) >>> 0
        const moved = moveCrc(wrong, zlibCrc32(oldHead), zlibCrc32(newHead), tail.length)
        expect((moved ^ zlibCrc32(Buffer.concat([newHead, tail]))) >>> 0).toBe(e)
      }),
      { numRuns: 300 },
    )
  })

  it('moves past 4 GiB and more: two moves make one move by their sum', () => {
    // moveCrc(0, h, 0, n) is h carried past n bytes; lengths are numbers, not 32-bit integers.
    const carry = (h: number, n: number) => moveCrc(0, h, 0, n)
    for (const [a, b] of [[1, 2], [1000, 65_536], [2 ** 31, 2 ** 31 + 5], [2 ** 32 - 1, 2 ** 33 + 7]] as const) {
      expect(carry(carry(0xdeadbeef, a), b)).toBe(carry(0xdeadbeef, a + b))
    }
    expect(carry(0xdeadbeef, 0)).toBe(0xdeadbeef)
  })
})
