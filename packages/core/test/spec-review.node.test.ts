// Where the codec met FORMAT.md only in part, as a review of 2026-11-28 found (each test failed
// before its fix): shape markers in every ext form, __proto__ never in a map, the same inflate
// codes on every platform and path, keys that are str or UTF16 only, and the 64-bit boundaries.
import { decode as msgpackDecode } from '@msgpack/msgpack'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { bindApi } from '../src/codec/api.js'
import { platform as nodePlatform } from '../src/codec/platform/node.js'
import { platform as portablePlatform } from '../src/codec/platform/portable.js'
import { createCodec, StowageError, type Extension } from '../src/index.js'
import { caught, sealDeflatedRaw, sealRaw } from './helpers.js'
import { referenceDecoder } from './reference-decoder.js'

const apis = { node: bindApi(nodePlatform), portable: bindApi(portablePlatform) }
const codeOf = (fn: () => unknown) => {
  const e = caught(fn)
  return e === undefined ? 'ok' : StowageError.isInstance(e) ? (e as StowageError).code : `non-Stowage: ${String(e)}`
}

describe('SHAPE / SHAPE_REF in the ext 32 form (FORMAT.md §2: "readers accept any form")', () => {
  // [SHAPE(["a"]) as ext 32, 1]  =  { a: 1 }
  const shape32 = new Uint8Array([0x92, 0xc9, 0, 0, 0, 3, 77, 0x91, 0xa1, 0x61, 0x01])
  // [[SHAPE(["a"]) as ext 8, 1], [SHAPE_REF(0) as ext 32, 2]]  =  [{ a: 1 }, { a: 2 }]
  const ref32 = new Uint8Array([0x92, 0x92, 0xc7, 3, 77, 0x91, 0xa1, 0x61, 0x01, 0x92, 0xc9, 0, 0, 0, 1, 78, 0, 0x02])
  for (const [name, api] of Object.entries(apis)) {
    it(`${name}: reads them as the reference decoder does`, () => {
      const ref = referenceDecoder()
      expect(ref(sealRaw(shape32, 2)).value).toStrictEqual({ a: 1 })
      expect(ref(sealRaw(ref32, 2)).value).toStrictEqual([{ a: 1 }, { a: 2 }])
      expect(codeOf(() => api.decode(sealRaw(shape32, 2)))).toBe('ok')
      expect(codeOf(() => api.decode(sealRaw(ref32, 2)))).toBe('ok')
    })
  }
})

describe('the writer never puts __proto__ in a map (FORMAT.md §2), even for objects the key trie does not take', () => {
  const wide = Object.fromEntries([['__proto__', 1], ...Array.from({ length: 129 }, (_, i) => [`k${i}`, i])])
  const longKey = Object.fromEntries([['__proto__', 1], ['k'.repeat(300), 2]])
  for (const [name, value] of Object.entries({ 'an object of 130 keys': wide, 'an object with a 300-char key': longKey })) {
    it(`${name}: the reference decoder (@msgpack/msgpack) reads what Stowage writes`, () => {
      const bytes = createCodec({ compress: 'never' }).encode(value)
      expect(() => msgpackDecode(bytes.subarray(8))).not.toThrow()
      expect(() => referenceDecoder()(bytes)).not.toThrow()
    })
  }
})

describe('inflate failures get the documented code on every platform and path', () => {
  // zlib's deflate of the one byte 0xc0 (nil).
  const oneByte = new Uint8Array(deflateRawSync(Buffer.from([0xc0])))
  it('a stream of 1 byte where 0 are announced is CORRUPT ("more than announced (so any stream when 0 is announced)")', () => {
    const bytes = sealDeflatedRaw(oneByte, new Uint8Array(0), { announced: 0 })
    expect({ node: codeOf(() => apis.node.decode(bytes)), portable: codeOf(() => apis.portable.decode(bytes)) }).toStrictEqual({ node: 'CORRUPT', portable: 'CORRUPT' })
  })
  it('an empty deflate stream (the bytes end inside the payload) is TRUNCATED on both platforms', () => {
    const bytes = sealDeflatedRaw(new Uint8Array(0), new Uint8Array(0), { announced: 5 })
    expect({ node: codeOf(() => apis.node.decode(bytes)), portable: codeOf(() => apis.portable.decode(bytes)) }).toStrictEqual({ node: 'TRUNCATED', portable: 'TRUNCATED' })
  })
  it('a version-1 envelope whose deflate stream is cut short is TRUNCATED, sync and async, on both platforms', async () => {
    const payload = new Uint8Array(createCodec({ compress: 'never', formatVersion: 2 }).encode('abc '.repeat(5000)).subarray(8)) // 20 kB: past the portable build's 16 KiB stream threshold
    const stream = new Uint8Array(deflateRawSync(payload))
    const bytes = sealDeflatedRaw(stream.subarray(0, stream.length - 20), payload, { version: 1 })
    const codes: Record<string, string> = {}
    for (const [name, api] of Object.entries(apis)) {
      codes[name] = codeOf(() => api.decode(bytes))
      codes[`${name} async`] = await api.decodeAsync(bytes).then(() => 'ok', (e) => (StowageError.isInstance(e) ? (e as StowageError).code : `non-Stowage: ${String(e)}`))
    }
    expect(codes).toStrictEqual({ node: 'TRUNCATED', 'node async': 'TRUNCATED', portable: 'TRUNCATED', 'portable async': 'TRUNCATED' })
  })
})

describe('a key is a str or a UTF16 extension, never a user extension (the shape book is shared by every codec, keyed by bytes)', () => {
  it('a codec reads another codec’s keys for a SHAPE whose key is a user extension', () => {
    class Tag {}
    const ext = (out: string): Extension => ({ type: 1, class: Tag, encode: () => null, decode: () => out })
    const a = createCodec({ extensions: [ext('x')] })
    const b = createCodec({ extensions: [ext('y')] })
    // [SHAPE([ext 1 (nil)]), 7]; FORMAT.md §2: a map key is a str or UTF16, so this should be CORRUPT, or at least read per codec.
    const payload = sealRaw(new Uint8Array([0x92, 0xc7, 4, 77, 0x91, 0xd4, 1, 0xc0, 7]), 2)
    const asA = codeOf(() => a.decode(payload)) === 'ok' ? a.decode(payload) : 'refused'
    const asB = codeOf(() => b.decode(payload)) === 'ok' ? b.decode(payload) : 'refused'
    expect([asA, asB]).not.toStrictEqual([{ x: 7 }, { x: 7 }])
  })
})

describe('64-bit integers and table references at the edges of FORMAT.md', () => {
  it('int 64 -2^53 (outside ±(2^53 − 1)) is read as a bigint, as uint 64 2^53 is', () => {
    const api = apis.node
    expect(api.decode(sealRaw(new Uint8Array([0xcf, 0x00, 0x20, 0, 0, 0, 0, 0, 0]), 2))).toBe(2n ** 53n)
    expect(api.decode(sealRaw(new Uint8Array([0xd3, 0xff, 0xe0, 0, 0, 0, 0, 0, 0]), 2))).toBe(-(2n ** 53n))
  })
  it('a STRING reference as a map key is CORRUPT (§2.1), even one of length 0', () => {
    // format 3: table "" then { STRING(0): 1 }
    expect(codeOf(() => apis.node.decode(sealRaw(new Uint8Array([0xc4, 0x00, 0x81, 0xd4, 79, 0x00, 0x01]), 3)))).toBe('CORRUPT')
  })
})

describe('SHAPE markers are ext 8 or ext 16 (FORMAT.md §2): past 64 KiB of key list, a map', () => {
  it('an object of 100 keys of 250 euro signs each (75 kB of keys) reads back', () => {
    const value = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${'€'.repeat(250)}${i}`, i]))
    for (const api of Object.values(apis)) {
      // Not an array of alike objects (that is RECORDS): the second sight of the keys makes a shape.
      const bytes = api.encode([value, 0, value], { compress: 'never' })
      expect(api.decode(bytes)).toStrictEqual([value, 0, value])
      expect(msgpackDecode(bytes.subarray(8))).toBeDefined()
    }
  })
  it('an object with __proto__ and a 70,000-character key is written without an ext 32 SHAPE', () => {
    const value = Object.fromEntries([['__proto__', 1], ['k'.repeat(70_000), 2]])
    const bytes = createCodec({ compress: 'never' }).encode(value)
    expect(Array.from(bytes.subarray(8, 10))).not.toContain(0xc9)
    expect(createCodec().decode(bytes)).toStrictEqual(value)
  })
})
