// Small inputs that once asked for seconds of work or gigabytes of objects (issue 20, items 10-13,
// and more of the same kind): each is refused with a typed error before the work is done, because
// decode work is counted against a budget that the stored size of the input sets. What Stowage
// writes, a reader with the same limits reads: dense values are stored so that their budget holds.
// Timings and memory are measured by apps/bench/src/hostile-bench.ts, not here.
import fc from 'fast-check'
import { deflateSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { COMPILE_AFTER, MAX_COMPILES_PER_DECODE, Shape, type CompileAllowance } from '../src/codec/shape-book.js'
import {
  createCodec,
  decode,
  decodeInvalidation,
  encode,
  INVALIDATION_CODEC_OPTIONS,
  inspect,
  StowageErrorCode,
  type StowageError,
} from '../src/index.js'
import { caught, sealDeflatedRaw, sealRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const MI = 1024 * 1024
const codeOf = (fn: () => unknown) => (caught(fn) as StowageError | undefined)?.code
const seal = (payload: Uint8Array) => sealDeflatedRaw(deflateSync(payload, { level: 9 }), payload)

function concat(...parts: Array<Uint8Array | number[]>): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
const u32 = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
// An array32 of `n` copies of `item`.
function copies(n: number, item: number[]): Uint8Array {
  const out = new Uint8Array(5 + n * item.length)
  out.set([0xdd, ...u32(n)])
  for (let i = 0, p = 5; i < n; i++, p += item.length) out.set(item, p)
  return out
}
const ext32 = (type: number, data: Uint8Array) => concat([0xc9, ...u32(data.length), type], data)
// RECORDS [n, ["a"], column].
const records = (n: number, column: Uint8Array) => ext32(73, concat([0x93, 0xce, ...u32(n), 0x91, 0xa1, 0x61], column))

describe('decode work is bounded by the input', () => {
  it('refuses RECORDS nested 45 levels deep, a million rows each, from 1,143 bytes (item 10)', () => {
    let payload = copies(1_000_000, [0])
    for (let level = 0; level < 45; level++) payload = records(1_000_000, payload)
    const bytes = seal(payload)
    expect(bytes.length).toBeLessThan(1200)
    expect(codeOf(() => decode(bytes))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
  })

  it('refuses 4 Mi empty objects from 4 kB, and a lower count of them uncompressed where each takes a byte (item 11)', () => {
    const bytes = seal(copies(4 * MI, [0x80]))
    expect(bytes.length).toBeLessThan(4200)
    expect(codeOf(() => decode(bytes))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(decode<unknown[]>(sealRaw(copies(100_000, [0x80])))).toHaveLength(100_000)
  })

  it('refuses BIGINTs past 1 MiB in all, one by one or together, envelopes and invalidation messages alike (item 12)', () => {
    const one = new Uint8Array(MI + 1).fill(0x5a)
    one[0] = 0
    const big = Array.from(ext32(65, one))
    expect(codeOf(() => decode(seal(copies(60, big))))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(decodeInvalidation(createCodec(INVALIDATION_CODEC_OPTIONS), seal(copies(7, big)))).toBeUndefined()
    // Two of 0.6 MiB: each under the limit, together over it, both ways.
    const half = (1n << BigInt(Math.floor(0.6 * MI) * 8)) - 1n
    expect(codeOf(() => encode([half, half]))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    const data = new Uint8Array(Math.floor(0.6 * MI) + 1).fill(0xff)
    data[0] = 0
    expect(codeOf(() => decode(sealRaw(concat([0x92], ext32(65, data), ext32(65, data)))))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(decode(encode([half, 1n]))).toStrictEqual([half, 1n])
  })

  it('compiles at most MAX_COMPILES_PER_DECODE shapes in one decode, however many are used often enough (item 13)', () => {
    const allowance: CompileAllowance = { left: MAX_COMPILES_PER_DECODE }
    const read = { value: () => 1 }
    for (let s = 0; s < 500; s++) {
      const shape = new Shape([`s${s}a`, `s${s}b`])
      for (let use = 0; use < COMPILE_AFTER; use++) expect(shape.read(read, allowance)).toStrictEqual({ [`s${s}a`]: 1, [`s${s}b`]: 1 })
    }
    expect(allowance.left).toBe(0)
    // A later decode compiles the next ones.
    const next = { left: MAX_COMPILES_PER_DECODE }
    new Shape(['s0a', 's0b']).rows([[1], [2]], 1, [], next)
    expect(next.left).toBe(MAX_COMPILES_PER_DECODE)
  })

  it('refuses other cheap inputs that ask for a lot: strings, typed arrays, Sets, DELTA, DICT, deep nesting, a long inflate', () => {
    const deep = new Uint8Array(100_000).fill(0x91)
    deep[deep.length - 1] = 0xc0
    const inputs: Array<[string, Uint8Array]> = [
      ['2 Mi strings of 10 chars', seal(copies(2 * MI, [0xaa, ...Array.from('abcdefghij', (c) => c.charCodeAt(0))]))],
      ['1 Mi empty typed arrays', seal(copies(MI, [0xd4, 69, 1]))],
      ['1 Mi empty Sets', seal(copies(MI, [0xd4, 68, 0x90]))],
      ['1 Mi empty Uint8Arrays', seal(copies(MI, [0xc4, 0]))],
      ['a Map of 1 Mi entries', seal(concat([0xc9, ...u32(10 + 2 * MI), 67, 0x92], copies(MI, [0]), copies(MI, [0])))],
      ['DELTA of 4 Mi zeros', seal(ext32(74, copies(4 * MI - 16, [0])))],
      ['a DICT of 1 M objects under one key', seal(ext32(75, concat([0x92], copies(1_000_000, [0xa1, 0x61]), records(1_000_000, copies(1_000_000, [0])))))],
      ['arrays nested 100 k deep', seal(deep)],
      ['a 60 MiB string from 60 kB', seal(concat([0xdb, ...u32(60 * MI)], new Uint8Array(60 * MI).fill(0x78)))],
    ]
    for (const [name, bytes] of inputs) {
      expect(bytes.length, name).toBeLessThan(64 * 1024)
      expect(codeOf(() => decode(bytes)), name).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    }
  })
})

describe('what Stowage writes, it reads', () => {
  it('stores a million-row table that deflates to 13 kB uncompressed, so it reads back', { timeout: 30_000 }, () => {
    const rows = Array.from({ length: 1_000_000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
    const bytes = encode(rows)
    expect(inspect(bytes).compression).toBe('none')
    expect(decode<unknown[]>(bytes)).toHaveLength(1_000_000)
    // Written before the work budget, deflated: refused by default, read with a raised limit.
    const payload = createCodec({ compress: 'never' }).encode(rows).subarray(8)
    const old = seal(payload)
    expect(codeOf(() => decode(old))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    expect(decode<unknown[]>(old, { maxWorkPerByte: 2 ** 32 })).toHaveLength(1_000_000)
  })

  it('writes RECORDS nested too deep for the budget as plain objects', () => {
    let row: unknown = true
    for (let i = 0; i < 6; i++) row = { [`k${i}`]: row }
    const value = Array.from({ length: 100_000 }, () => row)
    const bytes = encode(value, { compress: 'never' })
    expect(sameValue(decode(bytes), value)).toBeUndefined()
  })

  it('keeps values that deflate well deflated', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ['a', 'b'], score: i * 1.5 }))
    // compressThreshold 0: browsers deflate only from 256 KiB by default.
    expect(inspect(encode(rows, { compressThreshold: 0 })).compression).toBe('deflate-raw')
  })

  it('property: under a tight or the default budget, anything encode writes decodes', { timeout: 120_000 }, () => {
    // Values with their number of parts, kept under 200 k so that a run stays quick.
    type Sized = { v: unknown; size: number }
    const leaf = fc
      .constantFrom<unknown>({}, [], '', 'x', 0, new Uint8Array(0), new Set(), new Map(), new Date(0), 1n, '\ud800', undefined)
      .map((v): Sized => ({ v, size: 1 }))
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leaf, tie('repeated'), tie('object')) as fc.Arbitrary<Sized>,
      // Many copies of one value: RECORDS, DELTA and runs that deflate to almost nothing.
      repeated: fc
        .tuple(tie('value') as fc.Arbitrary<Sized>, fc.constantFrom(2, 9, 300, 5000, 40_000))
        .filter(([item, n]) => item.size * n <= 200_000)
        .map(([item, n]): Sized => ({ v: Array.from({ length: n }, () => item.v), size: item.size * n })),
      object: fc
        .dictionary(fc.constantFrom('a', 'b', '\ud800', 'longer key than the key cache holds, 40+'), tie('value') as fc.Arbitrary<Sized>, { maxKeys: 3, noNullPrototype: true })
        .map((entries): Sized => ({ v: Object.fromEntries(Object.entries(entries).map(([k, e]) => [k, e.v])), size: 1 + Object.values(entries).reduce((n, e) => n + e.size, 0) }))
        .filter((sized) => sized.size <= 200_000),
    }))
    fc.assert(
      fc.property(value, fc.constantFrom(20, 32), fc.constantFrom('auto', 'always', 'never') as fc.Arbitrary<'auto' | 'always' | 'never'>, ({ v }, maxWorkPerByte, compress) => {
        let bytes: Uint8Array
        try {
          bytes = encode(v, { maxWorkPerByte, compress, maxItems: 2 ** 32 })
        } catch (e) {
          // Refused (too many BIGINT bytes in all, too many bytes), never silently; a budget below
          // what plain MessagePack may need may refuse a value too, the default never does.
          expect((e as StowageError).code).toBe(StowageErrorCode.LIMIT_EXCEEDED)
          if (maxWorkPerByte === 32) expect((e as StowageError).message).not.toContain('decoding work')
          return
        }
        expect(sameValue(decode(bytes, { maxWorkPerByte, maxItems: 2 ** 32 }), v)).toBeUndefined()
      }),
      { numRuns: 150 },
    )
  })
})
