import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
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

describe('the portable platform and its WebAssembly CRC', () => {
  it('a codec made on it starts the module and checks large envelopes through fastCrc32', async () => {
    const calls: number[] = []
    const spied = { ...portable, fastCrc32: (data: Uint8Array, crc: number) => (calls.push(data.length), portable.fastCrc32!(data, crc)) }
    const codec = createCodecWith(spied, { compress: 'never' })
    // Once compiled, the module answers as crc32.ts does.
    expect(await startWasmCrc32()).toBe(true)
    expect(wasmCrc32(new Uint8Array([1, 2, 3]), 0)).toBe(crc32(new Uint8Array([1, 2, 3])))
    const bytes = codec.encode({ rows: Array.from({ length: 100 }, (_, i) => ({ i, s: `row ${i}` })) })
    codec.decode(bytes)
    expect(calls.length).toBeGreaterThanOrEqual(2) // the seal and the check
    expect(Math.max(...calls)).toBeGreaterThan(bytes.length - 64)
  })

  // Fresh copies of the modules are needed (the module compiles once per realm): vitest's browser
  // mode cannot evaluate a module again, so this runs where it can (Node, Bun, Deno); the code is the same.
  it.skipIf(typeof window !== 'undefined')('without WebAssembly, or with its compile refused, stays on the JavaScript CRC with the same results', async () => {
    let compiles = 0
    const refusing = { instantiate: () => (compiles++, Promise.reject(new Error('refused by a Content Security Policy'))) }
    for (const stub of [undefined, refusing]) {
      vi.resetModules()
      vi.stubGlobal('WebAssembly', stub)
      try {
        const fresh = await import('../src/codec/platform/wasm-crc32.js')
        const { platform: freshPortable } = await import('../src/codec/platform/portable.js')
        const { createCodecWith: freshCodec } = await import('../src/codec/codec.js')
        // Making a codec starts the compile, once for the realm.
        const codec = freshCodec(freshPortable, { compress: 'never' })
        freshCodec(freshPortable)
        expect(compiles).toBe(stub === refusing ? 1 : 0)
        expect(await fresh.startWasmCrc32()).toBe(false)
        expect(compiles).toBe(stub === refusing ? 1 : 0)
        expect(fresh.wasmCrc32(new Uint8Array(1000), 0)).toBeUndefined()
        const value = Array.from({ length: 500 }, (_, i) => ({ i, s: `row ${i}` }))
        const bytes = codec.encode(value)
        expect(codec.decode(bytes)).toStrictEqual(value)
        const damaged = bytes.slice()
        damaged[bytes.length - 3] = (damaged[bytes.length - 3] as number) ^ 1
        expect((caught(() => codec.decode(damaged)) as StowageError).code).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
      } finally {
        vi.unstubAllGlobals()
      }
    }
  })
})
