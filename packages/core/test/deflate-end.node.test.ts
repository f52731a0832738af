import fc from 'fast-check'
import { Deflate, deflateSync } from 'fflate'
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { BAD_STORED_LENGTH, deflateEnd } from '../src/codec/platform/deflate-end.js'

// The input zlib consumed: where it says the stream ends.
function zlibEnd(stream: Uint8Array, dictionary?: Uint8Array): number {
  const result = inflateRawSync(stream, { info: true, ...(dictionary === undefined ? {} : { dictionary }) }) as unknown as { engine: { bytesWritten: number } }
  return result.engine.bytesWritten
}

const strategies = [constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED]
const text = fc.array(fc.constantFrom('user', 'id', ':', ',', '"', '{', '}', 'createdAt', '1700000000', 'é', '\u0000', ' '), { maxLength: 400 }).map((parts) => new TextEncoder().encode(parts.join('')))
const input = fc.oneof(text, fc.uint8Array({ maxLength: 3000 }))

describe('deflateEnd: where a raw deflate stream ends, as zlib finds it', () => {
  it('agrees with zlib on streams of every level and strategy, with bytes after them or a byte short', () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 0, max: 9 }), fc.constantFrom(...strategies), fc.uint8Array({ maxLength: 4 }), (data, level, strategy, junk) => {
        const stream = new Uint8Array(deflateRawSync(data, { level, strategy }))
        expect(zlibEnd(stream)).toBe(stream.length)
        expect(deflateEnd(stream)).toBe(stream.length)
        expect(deflateEnd(new Uint8Array([...stream, ...junk]))).toBe(stream.length)
        expect(deflateEnd(stream.subarray(0, stream.length - 1))).toBe(-1)
      }),
      { numRuns: 500 },
    )
  })

  it('finds the end of fflate streams, of streams flushed into many blocks, and of streams over a dictionary', () => {
    fc.assert(
      // Parts of a byte at least: fflate 0.8.3 flushed after nothing writes a stream zlib refuses.
      fc.property(fc.array(input.filter((part) => part.length > 0), { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 9 }), fc.uint8Array({ minLength: 1, maxLength: 4 }), (parts, level, junk) => {
        const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
        parts.reduce((at, p) => (whole.set(p, at), at + p.length), 0)
        // fflate's streaming deflate, flushed after each part: stored, fixed and dynamic blocks.
        const chunks: Uint8Array[] = []
        const deflate = new Deflate({ level: level as 0 }, (chunk) => chunks.push(chunk))
        parts.forEach((part, i) => (deflate.push(part, i === parts.length - 1), i < parts.length - 1 && deflate.flush()))
        const flushed = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
        chunks.reduce((at, c) => (flushed.set(c, at), at + c.length), 0)
        // zlib takes an empty dictionary as none on one side only: a dictionary has a byte at least.
        const dictionary = new Uint8Array([1, ...(parts[0] as Uint8Array)])
        const withDictionary = new Uint8Array(deflateRawSync(whole, { level, dictionary }))
        for (const [stream, dict] of [[deflateSync(whole, { level: level as 0 })], [flushed], [withDictionary, dictionary]] as Array<[Uint8Array, Uint8Array?]>) {
          expect(zlibEnd(stream, dict)).toBe(stream.length)
          expect(deflateEnd(new Uint8Array([...stream, ...junk]))).toBe(stream.length)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('finds the end of a stream of many blocks (200 kB at every level)', () => {
    let seed = 1
    const data = new TextEncoder().encode(Array.from({ length: 40_000 }, () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 22).toString(36)).join(','))
    for (let level = 0; level <= 9; level++) {
      const stream = new Uint8Array(deflateRawSync(data, { level }))
      expect(deflateEnd(new Uint8Array([...stream, 0, 0]))).toBe(stream.length)
      expect(deflateEnd(stream.subarray(0, stream.length - 1))).toBe(-1)
    }
  })

  it('ends, on any bytes at all, where zlib ends whenever zlib reads them as a stream', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (data) => {
        const end = deflateEnd(data)
        expect(end === -1 || end === BAD_STORED_LENGTH || (end >= 1 && end <= data.length)).toBe(true)
        let zlib: number | undefined
        try {
          zlib = zlibEnd(data)
        } catch {
          // Not a stream to zlib (or one that reaches too far back): deflateEnd is not asked about it.
        }
        if (zlib !== undefined && zlib > 0) expect(end).toBe(zlib)
        // A stored block's NLEN that is not LEN's complement: zlib refuses the stream too.
        if (end === BAD_STORED_LENGTH) expect(zlib).toBeUndefined()
      }),
      { numRuns: 20_000 },
    )
  })

  it('says -1 for what is not a stream: a reserved block type, a stored block past the end, nothing at all', () => {
    expect(deflateEnd(new Uint8Array([0b111]))).toBe(-1)
    expect(deflateEnd(new Uint8Array([0b001, 10, 0, 0xf5, 0xff, 1, 2]))).toBe(-1)
    expect(deflateEnd(new Uint8Array(0))).toBe(-1)
    // An empty final stored block is 5 bytes; an empty final fixed block, 2.
    expect(deflateEnd(new Uint8Array([0b001, 0, 0, 0xff, 0xff, 9]))).toBe(5)
    expect(deflateEnd(new Uint8Array([0x03, 0x00, 9]))).toBe(2)
  })

  it('says BAD_STORED_LENGTH for a stored block whose NLEN is not the complement of its LEN, which zlib refuses', () => {
    expect(deflateEnd(new Uint8Array([0b001, 1, 0, 0xfe, 0xff, 7]))).toBe(6)
    expect(deflateEnd(new Uint8Array([0b001, 1, 0, 0xfe, 0xfe, 7]))).toBe(BAD_STORED_LENGTH)
    expect(deflateEnd(new Uint8Array([0b001, 1, 0, 1, 0, 7]))).toBe(BAD_STORED_LENGTH)
    expect(() => inflateRawSync(new Uint8Array([0b001, 1, 0, 1, 0, 7]))).toThrow('invalid stored block lengths')
  })
})
