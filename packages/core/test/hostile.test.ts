import fc from 'fast-check'
import { deflateSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { createCodec, decode, encode, StowageError, StowageErrorCode } from '../src/index.js'
import { caught, sealRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const codec = createCodec()
const samples: unknown[] = [
  { id: 1, name: 'Ada', tags: ['x', 'y'], at: new Date(5), big: 2n ** 70n },
  Array.from({ length: 300 }, (_, i) => ({ i, even: i % 2 === 0, label: `item ${i}` })),
  new Map<unknown, unknown>([[1, new Set(['a'])], ['k', new Float64Array([1, 2])]]),
  'long text '.repeat(200),
  // Format 4: an ASCII table and a text table.
  { rows: Array.from({ length: 60 }, (_, i) => ({ i, label: `item ${i}` })), note: 'one emoji 😀 among them' },
]
const envelopes = samples.map((value) => ({ value, bytes: encode(value) }))

const ANY = Symbol('any value')

/** Decoding must either give back exactly the original (or anything, with ANY) or throw a StowageError. */
function expectSafe(bytes: Uint8Array, original: unknown): void {
  let result: unknown
  try {
    result = codec.decode(bytes)
  } catch (e) {
    if (!StowageError.isInstance(e)) throw new Error(`a non-Stowage error escaped: ${String(e)}`, { cause: e })
    return
  }
  if (original !== ANY) expect(sameValue(result, original)).toBeUndefined()
}

describe('hostile input', () => {
  it('every truncation of a valid envelope gives a StowageError: TRUNCATED inside the header, CHECKSUM_MISMATCH after it (as README.md and FORMAT.md say)', () => {
    for (const { bytes } of envelopes) {
      const codes: string[] = []
      for (let cut = 0; cut < bytes.length; cut++) {
        const error = caught(() => codec.decode(bytes.subarray(0, cut)))
        expect(StowageError.isInstance(error), `cut at ${cut}`).toBe(true)
        codes.push((error as StowageError).code)
      }
      // The header holds no stored length: a cut once the CRC-32 field is whole is damage the CRC-32 finds.
      const firstMismatch = codes.indexOf(StowageErrorCode.CHECKSUM_MISMATCH)
      expect(firstMismatch).toBeGreaterThanOrEqual(8)
      expect(codes.slice(0, firstMismatch).every((c) => c === StowageErrorCode.TRUNCATED)).toBe(true)
      expect(codes.slice(firstMismatch).every((c) => c === StowageErrorCode.CHECKSUM_MISMATCH)).toBe(true)
    }
  })

  it('fuzz: bit flips and byte overwrites give a StowageError or the exact original', () => {
    fc.assert(
      fc.property(fc.nat(envelopes.length - 1), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (which, edits) => {
        const { value, bytes } = envelopes[which]!
        const damaged = bytes.slice()
        for (const [at, byte] of edits) damaged[at % damaged.length] = byte
        expectSafe(damaged, value)
      }),
      { numRuns: 2000 },
    )
  })

  it('fuzz: random bytes, bare or behind a valid header and CRC, never escape as anything but a StowageError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), fc.constantFrom(1, 2, 3, 4), (random, sealed, version) => {
        // Behind a valid header and CRC, random MessagePack may well be a value: that is fine.
        expectSafe(sealed ? sealRaw(random, version) : random, ANY)
      }),
      { numRuns: 5000 },
    )
  })

  it('refuses an announced size above maxBytes before inflating', () => {
    const bytes = createCodec({ compress: 'always' }).encode('x'.repeat(5000))
    const error = caught(() => createCodec({ maxBytes: 1000 }).decode(bytes))
    expect((error as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
  })

  it('stops a decompression bomb at the announced size', () => {
    // 32 MiB of zeros deflate to ~32 KiB; the envelope claims 1 KiB.
    const bomb = deflateSync(new Uint8Array(32 * 1024 * 1024), { level: 9 })
    for (const announced of [1024, 10 * 1024 * 1024]) {
      const bytes = new Uint8Array(12 + bomb.length)
      bytes.set([0xc1, 1, 1, 0])
      new DataView(bytes.buffer).setUint32(4, announced)
      bytes.set(bomb, 12)
      const error = caught(() => codec.decode(bytes))
      expect(StowageError.isInstance(error)).toBe(true)
      // Depending on the backend the inflate stops at the announced size (CORRUPT) or is cut
      // there, and the CRC then fails (CHECKSUM_MISMATCH): never more than announced is held.
      expect([StowageErrorCode.CORRUPT, StowageErrorCode.CHECKSUM_MISMATCH]).toContain((error as StowageError).code)
    }
  })

  it('refuses an announced size no deflate stream of that length could produce', () => {
    const bytes = new Uint8Array([0xc1, 1, 1, 0, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x00])
    expect((caught(() => codec.decode(bytes)) as StowageError).code).toBe(StowageErrorCode.CORRUPT)
  })

  it('refuses array, map and string lengths the payload cannot hold, without allocating them', () => {
    for (const [payload, code] of [
      [[0xdd, 0xff, 0xff, 0xff, 0xff], StowageErrorCode.LIMIT_EXCEEDED], // array of 4 billion: past maxItems
      [[0xdf, 0xff, 0xff, 0xff, 0xff], StowageErrorCode.LIMIT_EXCEEDED], // map of 4 billion
      [[0xdd, 0x00, 0x10, 0x00, 0x00], StowageErrorCode.TRUNCATED], // array of 1 Mi: within maxItems, but no bytes for it
      [[0xdb, 0xff, 0xff, 0xff, 0xff], StowageErrorCode.TRUNCATED], // string of 4 GiB
      [[0xc9, 0xff, 0xff, 0xff, 0xff, 0x49], StowageErrorCode.TRUNCATED], // records extension of 4 GiB
    ] as const) {
      const error = caught(() => codec.decode(sealRaw(new Uint8Array(payload))))
      expect((error as StowageError).code).toBe(code)
    }
  })

  it('bounds nesting on decode with maxDepth, without a stack overflow', () => {
    const deep = new Uint8Array(100_000).fill(0x91) // [[[[…]]]]
    deep[deep.length - 1] = 0xc0
    const error = caught(() => codec.decode(sealRaw(deep)))
    expect((error as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
  })

  it('bounds nesting on encode and tells cycles apart', () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 150; i++) deep = { child: deep }
    expect((caught(() => encode(deep)) as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(decode(encode(deep, { maxDepth: 200 }), { maxDepth: 200 })).toBeTruthy()
    expect((caught(() => decode(encode(deep, { maxDepth: 200 }))) as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    const loop: Record<string, unknown> = { a: 1 }
    loop.self = [{ back: loop }]
    expect((caught(() => encode(loop)) as StowageError).code).toBe(StowageErrorCode.CYCLE)
    const viaMap = new Map<string, unknown>()
    viaMap.set('me', viaMap)
    expect((caught(() => encode(viaMap)) as StowageError).code).toBe(StowageErrorCode.CYCLE)
  })

  it('a value exactly maxDepth deep passes, one more level fails', () => {
    const nest = (n: number): unknown => (n === 0 ? 1 : [nest(n - 1)])
    expect(decode(encode(nest(5), { maxDepth: 5 }), { maxDepth: 5 })).toStrictEqual(nest(5))
    expect((caught(() => encode(nest(6), { maxDepth: 5 })) as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
  })

  it('refuses values bigger than maxBytes on encode', () => {
    expect((caught(() => encode('x'.repeat(5000), { maxBytes: 1000 })) as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    // Past 1 MiB a string takes another path (TextEncoder); it is refused as well, well-formed or not.
    for (const huge of ['é'.repeat(3 << 20), `\ud800${'x'.repeat(3 << 20)}`]) {
      expect((caught(() => encode({ huge }, { maxBytes: 2 << 20 })) as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    }
  })

  it('refuses functions, symbols and unregistered classes', () => {
    class Point {
      x = 1
    }
    for (const value of [() => 1, Symbol('s'), new Point(), { nested: [new WeakMap()] }, Promise.resolve()]) {
      expect((caught(() => encode(value)) as StowageError).code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    }
  })
})
