import { encode as msgpackEncode } from '@msgpack/msgpack'
import { describe, expect, it } from 'vitest'
import { createCodec, ExtType, StowageError, StowageErrorCode } from '../src/index.js'
import { COMPILE_AFTER, hashBytes, shapeFor } from '../src/codec/shape-book.js'
import { caught, hex, sealRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const never = createCodec({ compress: 'never' })
// The layout of shapes is read from format 2 payloads (no string table before the value).
const format2 = createCodec({ compress: 'never', formatVersion: 2 })
const payload = (value: unknown) => format2.encode(value).subarray(8)
const user = (login: string, id: number) => ({
  login,
  id,
  avatar_url: `https://avatars.example.com/u/${id}`,
  url: `https://api.example.com/users/${login}`,
  html_url: `https://example.com/${login}`,
  type: 'User',
  site_admin: false,
})
// Counts the SHAPE and SHAPE_REF markers of a payload, as a reader sees them (the first element of an array).
function markers(bytes: Uint8Array): { shapes: number; refs: number } {
  let shapes = 0
  let refs = 0
  for (let i = 0; i + 2 < bytes.length; i++) {
    const b = bytes[i] as number
    if ((b & 0xf0) !== 0x90 && b !== 0xdc) continue
    const at = i + (b === 0xdc ? 3 : 1)
    if (bytes[at] === 0xd4 && bytes[at + 1] === ExtType.SHAPE_REF) refs++
    if (bytes[at] === 0xc7 && bytes[at + 2] === ExtType.SHAPE) shapes++
  }
  return { shapes, refs }
}

describe('shapes: keys once per value for objects that repeat anywhere', () => {
  it('writes the keys of a nested object that repeats once, then refers to them', () => {
    const value = { action: 'opened', sender: user('ann', 1), repository: { name: 'r', owner: user('bob', 2) }, assignee: user('cy', 3) }
    const bytes = payload(value)
    expect(markers(bytes)).toStrictEqual({ shapes: 1, refs: 1 })
    // A map, then a SHAPE (the keys again), then a SHAPE_REF: one key set (49 bytes) saved, less the markers.
    expect(bytes.length).toBeLessThan(msgpackEncode(value).length - 40)
    expect(sameValue(never.decode(never.encode(value)), value)).toBeUndefined()
  })

  it('gives rows with optional fields a shape per key set', () => {
    const rows = Array.from({ length: 60 }, (_, i) => ({ id: i, name: `row ${i}`, ...(i % 3 === 0 ? { note: 'x' } : {}), ...(i % 5 === 0 ? { tags: ['a'] } : {}) }))
    const bytes = payload(rows)
    expect(markers(bytes).shapes).toBe(4)
    expect(bytes.length).toBeLessThan(msgpackEncode(rows).length * 0.75)
    expect(sameValue(never.decode(never.encode(rows)), rows)).toBeUndefined()
  })

  it('writes an object of 8 keys or more as a shape at first sight, and small one-off objects as maps', () => {
    expect(markers(payload({ a1: 1, a2: 2, a3: 3, a4: 4, a5: 5, a6: 6, a7: 7, a8: 8 })).shapes).toBe(1)
    const token = { userId: 'u_8f3a2c', token: '0123456789abcdef0123456789abcdef', scopes: ['read'], expiresAt: 1767225600000 }
    expect(hex(payload(token))).toBe(hex(msgpackEncode(token)))
  })

  it('never uses a shape where a map is smaller', () => {
    const rows = [{ a: 1 }, { a: 2, b: 2 }, { a: 3 }, { a: 4 }]
    expect(markers(payload(rows))).toStrictEqual({ shapes: 0, refs: 0 })
  })

  it('keeps key order, integer-like keys, __proto__ and lone-surrogate keys exact through shapes', () => {
    const odd = () => JSON.parse('{"b": 1, "2": 2, "a": 3, "1": 4, "__proto__": 5, "\\ud800x": 6}')
    const value = [odd(), { other: true }, odd(), { other: false }, odd()]
    const back = never.decode<Array<Record<string, unknown>>>(never.encode(value))
    expect(sameValue(back, value)).toBeUndefined()
    expect(Object.keys(back[4] as object)).toStrictEqual(Object.keys(odd()))
    expect(Object.getPrototypeOf(back[4])).toBe(Object.prototype)
  })

  it('builds objects the same way before and after a shape is compiled, across calls', () => {
    const value = Array.from({ length: 30 }, (_, i) => ({ kind: i % 2 ? 'x' : 'y', nested: { p: i, q: [i], r: { s: `${i}` } }, [`k${i % 3}`]: i }))
    const bytes = never.encode(value)
    // Enough rounds that every shape passes COMPILE_AFTER uses.
    for (let round = 0; round * 30 <= COMPILE_AFTER + 30; round++) expect(sameValue(never.decode(bytes), value)).toBeUndefined()
  })

  it('writes objects of more than 128 keys, and values with more than 65,536 shapes, as maps past the limit', () => {
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`key${i}`, i]))
    expect(sameValue(never.decode(never.encode([wide, wide, wide])), [wide, wide, wide])).toBeUndefined()
    const many = Array.from({ length: 70_000 }, (_, i) => ({ [`a${i}`]: i, [`b${i}`]: i, [`c${i}`]: i }))
    const twice = [...many, ...many]
    expect(sameValue(never.decode(never.encode(twice)), twice)).toBeUndefined()
  })
})

describe('shape markers in hostile bytes', () => {
  const decode = (payload: number[]) => caught(() => never.decode(sealRaw(new Uint8Array(payload), 2))) as StowageError
  it('refuses a reference to a shape not defined before it', () => {
    expect(decode([0x92, 0xd4, ExtType.SHAPE_REF, 0, 1]).code).toBe(StowageErrorCode.CORRUPT)
    expect(decode([0x92, 0xd5, ExtType.SHAPE_REF, 0xff, 0xff, 1]).code).toBe(StowageErrorCode.CORRUPT)
  })

  it('refuses an object with more or fewer values than its shape has keys', () => {
    // [SHAPE(["a", "b"]), 1]: two keys, one value
    expect(decode([0x92, 0xc7, 5, ExtType.SHAPE, 0x92, 0xa1, 0x61, 0xa1, 0x62, 1]).code).toBe(StowageErrorCode.CORRUPT)
  })

  it('refuses a key list it has read before, under an object with more or fewer values than its keys', () => {
    const keys = [0x92, 0xa2, 0x71, 0x31, 0xa2, 0x71, 0x32] // ["q1", "q2"], written nowhere else in these tests
    expect(never.decode(sealRaw(new Uint8Array([0x93, 0xc7, keys.length, ExtType.SHAPE, ...keys, 1, 2]), 2))).toStrictEqual({ q1: 1, q2: 2 })
    expect(decode([0x92, 0xc7, keys.length, ExtType.SHAPE, ...keys, 1]).code).toBe(StowageErrorCode.CORRUPT)
    expect(decode([0x94, 0xc7, keys.length, ExtType.SHAPE, ...keys, 1, 2, 3]).code).toBe(StowageErrorCode.CORRUPT)
  })

  it('counts and charges a shape\'s keys alike when its bytes are new and when the book knows them', () => {
    // Objects of 8 keys are written as SHAPE markers at first sight; one key is a lone surrogate (a
    // UTF16 extension, which takes the walk every time), in one of the two shapes.
    const valueOf = (unique: string) => {
      const str = Array.from({ length: 8 }, (_, i) => `${unique}k${i}`)
      const utf16 = [...str.slice(0, 7), `${unique}\ud800`]
      return [Object.fromEntries(str.map((k, i) => [k, i])), Object.fromEntries(utf16.map((k, i) => [k, i]))]
    }
    expect(markers(payload(valueOf('probe'))).shapes).toBe(2)
    // 80 shapes of 8 keys: 640 keys at KEY_LIST_WORK each, past the budget of maxWorkPerByte 1 only.
    const manyShapes = (unique: string) => Array.from({ length: 80 }, (_, j) => Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`${unique}${j}k${i}`, i])))
    expect(markers(payload(manyShapes('probe'))).shapes).toBe(80)
    const outcomes = (options: { maxItems?: number; maxWorkPerByte?: number }, unique: string) => {
      const codec = createCodec({ compress: 'never', ...options })
      const bytes = sealRaw(payload(options.maxItems === undefined ? manyShapes(unique) : valueOf(unique)), 2)
      const once = () => (caught(() => codec.decode(bytes)) as StowageError | undefined)?.code ?? 'ok'
      return [once(), once(), once()]
    }
    const unique = (tag: string) => `${tag}_${Math.random().toString(36).slice(2)}_`
    for (const [name, values] of [
      ['maxItems', Array.from({ length: 64 }, (_, i) => i + 1)],
      ['maxWorkPerByte', [1, 2, 3, 4]],
    ] as const) {
      const seen = new Set<string>()
      for (const limit of values) {
        // The first decode reads new bytes (the keys are unique), the next two find them in the book.
        const [first, second, third] = outcomes({ [name]: limit }, unique(`${name}${limit}`))
        expect([name, limit, second]).toStrictEqual([name, limit, first])
        expect([name, limit, third]).toStrictEqual([name, limit, first])
        seen.add(first!)
      }
      expect([name, seen]).toStrictEqual([name, new Set([StowageErrorCode.LIMIT_EXCEEDED, 'ok'])])
    }
  })

  it('refuses keys that are not strings, and a marker anywhere but first in an array', () => {
    expect(decode([0x92, 0xc7, 2, ExtType.SHAPE, 0x91, 0x01, 1]).code).toBe(StowageErrorCode.CORRUPT)
    expect(decode([0x92, 0x01, 0xd4, ExtType.SHAPE_REF, 0]).code).toBe(StowageErrorCode.CORRUPT)
    expect(decode([0xd4, ExtType.SHAPE_REF, 0]).code).toBe(StowageErrorCode.CORRUPT)
  })

  it('refuses a shape marker that runs past its array', () => {
    expect(decode([0x92, 0xc7, 40, ExtType.SHAPE, 0x91, 0xa1, 0x61]).code).toBe(StowageErrorCode.TRUNCATED)
  })

  it('reads duplicate keys as a map would: the last value wins', () => {
    const value = never.decode(sealRaw(new Uint8Array([0x93, 0xc7, 5, ExtType.SHAPE, 0x92, 0xa1, 0x61, 0xa1, 0x61, 1, 2]), 2))
    expect(value).toStrictEqual({ a: 2 })
  })
})

describe('the shape book', () => {
  // 66 bytes of key list: the hash samples every other byte, so lists that differ only in byte 1 share a bucket.
  const colliding = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      const bytes = new Uint8Array(70).fill(0x61)
      bytes[3] = 0x30 + i // the list starts at offset 2 below
      return bytes
    })
  const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)

  it('tells apart key lists whose hash is the same, and keeps at most a bounded chain of them', () => {
    const lists = colliding(12)
    expect(new Set(lists.map((b) => hashBytes(b, 2, 68))).size).toBe(1)
    const first = lists.map((b, i) => shapeFor(view(b), b, 2, 68, () => [`k${i}`]))
    first.forEach((shape, i) => expect(shape.keys).toEqual([`k${i}`]))
    // Asked again (from other memory holding the same bytes at another offset), each list finds its own shape.
    const again = lists.map((b, i) => {
      const moved = new Uint8Array(80)
      moved.set(b.subarray(2, 68), 5)
      return shapeFor(view(moved), moved, 5, 71, () => [`new${i}`])
    })
    again.forEach((shape, i) => expect(shape.keys).toEqual([i < 8 ? `k${i}` : `new${i}`]))
    // The first eight were kept; the others were built and let go, so a bucket cannot grow without bound.
    again.forEach((shape, i) => (i < 8 ? expect(shape).toBe(first[i]) : expect(shape).not.toBe(first[i])))
  })

  it('knows which key lists are str keys only, the ones it reads again without a second look', () => {
    // `keys`: how many keys the decoder found there (the book is given them).
    const plain = (bytes: number[], keys: number) => shapeFor(view(new Uint8Array(bytes)), new Uint8Array(bytes), 0, bytes.length, () => Array.from({ length: keys }, (_, i) => `k${i}`)).plain
    expect(plain([0x92, 0xa1, 0x7a, 0xd9, 0x01, 0x79], 2)).toBe(true) // ["z", "y"] as fixstr and str8
    expect(plain([0xdc, 0x00, 0x01, 0xda, 0x00, 0x01, 0x78], 1)).toBe(true) // array16 of one str16
    expect(plain([0x92, 0xa1, 0x77, 0xd5, ExtType.UTF16, 0xd8, 0x00], 2)).toBe(false) // a UTF16 key
    expect(plain([0x92, 0xa1, 0x76, 0x01], 2)).toBe(false) // a key that is not a string
    expect(plain([0x91, 0xa1, 0x75, 0xa1], 1)).toBe(false) // bytes past the keys
    expect(plain([0x92, 0xa1, 0x74], 2)).toBe(false) // fewer keys than the header says
    expect(plain([0x93, 0xa1, 0x73, 0xa1, 0x72], 2)).toBe(false) // a header that says more keys than were found
  })

  it('tells apart key lists that differ only in their last bytes past a whole word', () => {
    // 67 bytes: the hash samples even offsets and the last byte; offset 65 is in the 3-byte tail and not sampled.
    const lists = [0x41, 0x42, 0x43].map((c) => {
      const bytes = new Uint8Array(67).fill(0x62)
      bytes[65] = c
      return bytes
    })
    expect(new Set(lists.map((b) => hashBytes(b, 0, 67))).size).toBe(1)
    const shapes = lists.map((b, i) => shapeFor(view(b), b, 0, 67, () => [`tail${i}`]))
    lists.forEach((b, i) => expect(shapeFor(view(b), b, 0, 67, () => ['again']).keys).toEqual([`tail${i}`]))
    expect(new Set(shapes).size).toBe(3)
  })

  it('decodes objects whose key lists differ only where the hash does not look, value after value', () => {
    // Nine keys of 7 characters: a 73-byte key list; the variants differ in one character of the fifth key.
    const objects = Array.from({ length: 30 }, (_, v) => {
      const o: Record<string, number> = {}
      for (let k = 0; k < 9; k++) o[k === 4 ? `key4_${String.fromCharCode(0x41 + v)}_` : `key${k}___`] = k * 100 + v
      return o
    })
    const one = never.decode(never.encode(objects))
    expect(sameValue(one, objects)).toBeUndefined()
    for (const o of objects) expect(sameValue(never.decode(never.encode(o)), o)).toBeUndefined()
    for (const o of [...objects].reverse()) expect(sameValue(never.decode(never.encode([o, o])), [o, o])).toBeUndefined()
  })
})
