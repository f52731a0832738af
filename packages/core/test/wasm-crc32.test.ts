import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createCodecWith } from '../src/codec/codec.js'
import { crc32 } from '../src/codec/crc32.js'
import { platform as portable } from '../src/codec/platform/portable.js'
import { StowageErrorCode, type StowageError } from '../src/index.js'
import { caught } from './helpers.js'
import { startWasmCrc32, wasmCrc32 } from '../src/codec/platform/wasm-crc32.js'

// The portable build checks large envelopes with the WebAssembly CRC once its module is compiled:
// it must agree with the JavaScript CRC (itself checked against zlib) on every length, offset and
// starting CRC, and across the 64 KiB pages it copies the bytes through.
describe('wasmCrc32 (the portable build)', () => {
  it('compiles, and agrees with the JavaScript CRC for every length from 0 to 600 bytes at every offset', async () => {
    expect(await startWasmCrc32()).toBe(true)
    const buffer = new Uint8Array(700).map((_, i) => (i * 7919 + 13) & 0xff)
    for (let offset = 0; offset < 4; offset++) {
      for (let length = 0; length <= 600; length++) {
        const data = buffer.subarray(offset, offset + length)
        expect(wasmCrc32(data, 0)).toBe(crc32(data))
      }
    }
  })

  it('agrees on random bytes, continued from an earlier CRC, and across its 64 KiB pages', async () => {
    await startWasmCrc32()
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.nat(), (bytes, start) => {
        expect(wasmCrc32(bytes, start >>> 0)).toBe(crc32(bytes, start >>> 0))
      }),
      { numRuns: 200 },
    )
    for (const length of [65_535, 65_536, 65_537, 2 * 65_536 + 13]) {
      const data = new Uint8Array(length).map((_, i) => (i * 2_654_435_761) >>> 24)
      expect(wasmCrc32(data, 0)).toBe(crc32(data))
      expect(wasmCrc32(data.subarray(7), 0x1234_5678)).toBe(crc32(data.subarray(7), 0x1234_5678))
      expect(wasmCrc32(data, 0xdead_beef)).toBe(crc32(data, 0xdead_beef)) // a CRC past 2^31, as zlib's are half the time
    }
  })
})

describe('the portable codec with the WebAssembly CRC ready', () => {
  it('checks envelopes with it: a flipped bit in 130 kB and more is CHECKSUM_MISMATCH, the intact bytes decode', async () => {
    const codec = createCodecWith(portable, { compress: 'never' })
    expect(await startWasmCrc32()).toBe(true)
    const value = Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `row ${i}`, note: 'x'.repeat(i % 40) }))
    const bytes = codec.encode(value)
    expect(bytes.length).toBeGreaterThan(130_000)
    expect(codec.decode(bytes)).toStrictEqual(value)
    for (const at of [bytes.length - 1, 70_000, 131_000]) {
      const damaged = bytes.slice()
      damaged[at] = (damaged[at] as number) ^ 0x10
      expect((caught(() => codec.decode(damaged)) as StowageError).code).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
    }
  })
})
