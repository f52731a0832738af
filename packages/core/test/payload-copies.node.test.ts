// The arrays encodeAsync lends for the payloads it hands to another thread's deflate (see
// codec/payload-copies.ts), and how encodeAsync gives them back. On Node: the tests hand in
// node:zlib's deflate.
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { PayloadCopies } from '../src/codec/payload-copies.js'
import { createCodec, inspect, type AsyncDeflate } from '../src/index.js'

const KiB = 1024

describe('PayloadCopies', () => {
  it('lends the smallest array that fits, and keeps the largest when full, so that small first payloads do not crowd out the large ones', () => {
    const copies = new PayloadCopies()
    // A cold page's first segments, then one of an in-between size, then full ones, two in flight.
    const made = new Set<Uint8Array>()
    let fresh = 0
    const inFlight: Uint8Array[] = []
    for (const size of [64, 128, 256, 400, ...Array(10).fill(512)] as number[]) {
      const array = copies.take(size * KiB)
      expect(array.length).toBeGreaterThanOrEqual(size * KiB)
      if (!made.has(array)) fresh++
      made.add(array)
      inFlight.push(array)
      if (inFlight.length > 2) copies.give(inFlight.shift() as Uint8Array)
    }
    // The 512 KiB payloads soon find arrays of their size: not one new array each.
    expect(fresh).toBeLessThanOrEqual(7)
  })

  it('never lends an array twice before it is given back, and gives each new one a quarter more room only while it could be kept', () => {
    const copies = new PayloadCopies()
    const a = copies.take(100 * KiB)
    const b = copies.take(100 * KiB)
    expect(a).not.toBe(b)
    expect(a.length).toBe(128 * KiB) // 125 KiB in whole 4 KiB pages
    expect(copies.take(1000).length).toBe(1000)
    expect(copies.take(3 * 1024 * KiB).length).toBe(3 * 1024 * KiB) // past what is kept: its own size
    expect(copies.take(9 * 1024 * KiB).length).toBe(9 * 1024 * KiB)
    copies.give(a)
    expect(copies.take(50 * KiB)).toBe(a)
  })
})

describe('encodeAsync and the copies it lends', () => {
  const value = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ['a', 'b'] })) }

  it('keeps a payload whose deflate does not pay, from a reused copy, whole', async () => {
    const codec = createCodec({ compressThreshold: 1024 })
    const seen: Uint8Array[] = []
    const deflate: AsyncDeflate = async (payload) => (seen.push(payload), new Uint8Array(deflateRawSync(payload)))
    const stored: AsyncDeflate = async (payload) => (seen.push(payload), new Uint8Array(deflateRawSync(payload, { level: 0 })))
    await codec.encodeAsync(value, undefined, { deflate })
    const bytes = await codec.encodeAsync({ ...value, more: true }, undefined, { deflate: stored })
    expect(seen[1]!.buffer).toBe(seen[0]!.buffer) // the same memory, lent again
    expect(inspect(bytes).compression).toBe('none')
    expect(createCodec().decode(bytes)).toStrictEqual({ ...value, more: true })
  })

  it('does not lend again the copy of a payload whose deflate rejected (it may still be reading it)', async () => {
    const codec = createCodec({ compressThreshold: 1024 })
    let refused: Uint8Array | undefined
    const failing: AsyncDeflate = async (payload) => {
      refused = payload
      throw new Error('the worker stopped')
    }
    await expect(codec.encodeAsync(value, undefined, { deflate: failing })).rejects.toThrow('the worker stopped')
    const lent: Uint8Array[] = []
    const deflate: AsyncDeflate = async (payload) => (lent.push(payload), new Uint8Array(deflateRawSync(payload)))
    for (let i = 0; i < 3; i++) await codec.encodeAsync(value, undefined, { deflate })
    expect(lent.some((payload) => payload.buffer === refused!.buffer)).toBe(false)
    expect(new Set(lent.map((payload) => payload.buffer)).size).toBe(1) // the others reuse one copy
  })
})
