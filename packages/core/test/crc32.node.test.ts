import { crc32 as zlibCrc32 } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crc32, crc32Range } from '../src/codec/crc32.js'

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
