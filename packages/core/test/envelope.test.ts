import { describe, expect, it } from 'vitest'
import { createCodec, DEFAULT_COMPRESS_THRESHOLD, encode, FORMAT_VERSION, inspect, MAGIC, StowageError, StowageErrorCode } from '../src/index.js'
import { caught } from './helpers.js'

const text = 'the same sentence again and again; '.repeat(100)

describe('envelope', () => {
  it('starts with 0xC1, format version 2 for values with few strings (3 with an ASCII string table, 4 with a text table too), and says how it is stored', () => {
    const small = encode({ a: 1 })
    expect([...small.subarray(0, 4)]).toStrictEqual([MAGIC, 2, 0, 0])
    expect([...encode(Array.from({ length: 40 }, (_, i) => `s${i}`)).subarray(0, 4)]).toStrictEqual([MAGIC, 3, 0, 0])
    expect([...encode([...Array.from({ length: 40 }, (_, i) => `string ${i}`), 'é']).subarray(0, 4)]).toStrictEqual([MAGIC, FORMAT_VERSION, 0, 0])
    expect(FORMAT_VERSION).toBe(4)
    expect(inspect(small)).toStrictEqual({
      formatVersion: 2,
      compression: 'none',
      dictionaryId: undefined,
      payloadCrc: undefined,
      schemaVersion: undefined,
      freshUntil: undefined,
      tags: undefined,
      validator: undefined,
      payloadLength: small.length - 8,
      byteLength: small.length,
      crc: new DataView(small.buffer, small.byteOffset).getUint32(4),
    })
    const big = encode(text, { compressThreshold: 1024 })
    expect(inspect(big).compression).toBe('deflate-raw')
    expect(inspect(big).payloadLength).toBe(text.length + 3)
    expect(big.length).toBeLessThan(text.length / 10)
  })

  it('returns exact-length arrays that never overlap; large ones own their memory, small ones share a slab', () => {
    const codec = createCodec()
    const small = [codec.encode({ a: 1 }), codec.encode('x'.repeat(200)), codec.encode([1, 2, 3])]
    for (const bytes of small) {
      // A Uint8Array; the Node build hands out Buffers over the same memory (node-bytes.node.test.ts).
      expect(bytes).toBeInstanceOf(Uint8Array)
      expect(bytes.length).toBe(inspect(bytes).byteLength)
    }
    // Writing into one small result changes no other (copies made with new Uint8Array: a Buffer's slice() is a view).
    const copies = small.map((b) => new Uint8Array(b))
    small[1]!.fill(0)
    expect(new Uint8Array(small[0]!)).toStrictEqual(copies[0])
    expect(new Uint8Array(small[2]!)).toStrictEqual(copies[2])
    const never = createCodec({ compress: 'never' })
    for (const value of [text.repeat(2), { big: Array.from({ length: 3000 }, (_, i) => i * i) }, new Uint8Array(8192)]) {
      const bytes = never.encode(value)
      expect(bytes.length).toBeGreaterThanOrEqual(4096)
      expect(bytes.byteOffset).toBe(0)
      expect(bytes.buffer.byteLength).toBe(bytes.length)
    }
  })

  it('does not share memory between results', () => {
    const codec = createCodec()
    const a = codec.encode('first value')
    const copy = a.slice()
    codec.encode('second value, longer than the first')
    expect(a).toStrictEqual(copy)
  })

  it('auto mode leaves small values uncompressed and never makes them bigger than their MessagePack', () => {
    const token = { userId: 'u_8f3a2c', token: '0123456789abcdef0123456789abcdef', scopes: ['read'], expiresAt: 1767225600000 }
    const bytes = encode(token)
    expect(inspect(bytes).compression).toBe('none')
    expect(bytes.length).toBe(inspect(bytes).payloadLength + 8)
    // incompressible data above the threshold stays uncompressed too
    let seed = 1
    const noise = new Uint8Array(DEFAULT_COMPRESS_THRESHOLD * 4).map(() => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24))
    expect(inspect(encode(noise)).compression).toBe('none')
  })

  it('always/never modes and levels do what they say', () => {
    expect(inspect(createCodec({ compress: 'always' }).encode(1)).compression).toBe('deflate-raw')
    expect(inspect(createCodec({ compress: 'never' }).encode(text)).compression).toBe('none')
    const stored = createCodec({ compress: 'always', level: 0 }).encode(text)
    const fast = createCodec({ compress: 'always', level: 1 }).encode(text)
    expect(stored.length).toBeGreaterThan(text.length)
    expect(fast.length).toBeLessThan(text.length / 10)
    expect(createCodec().decode(stored)).toBe(text)
  })

  it('carries a schema version when the codec has one', () => {
    const codec = createCodec({ schemaVersion: 7 })
    const bytes = codec.encode({ a: 1 })
    expect(inspect(bytes).schemaVersion).toBe(7)
    expect(codec.decode(bytes)).toStrictEqual({ a: 1 })
    expect(createCodec().decode(bytes)).toStrictEqual({ a: 1 })
  })

  it('carries per-envelope metadata: a fresh-until time and a schema version overriding the codec’s', () => {
    const codec = createCodec({ schemaVersion: 2 })
    const freshUntil = 1_767_225_600_123
    for (const value of [{ a: 1 }, text]) {
      const bytes = codec.encode(value, { freshUntil, schemaVersion: 5 })
      expect(inspect(bytes)).toMatchObject({ freshUntil, schemaVersion: 5 })
      expect(codec.decodeEnvelope(bytes)).toStrictEqual({ value, schemaVersion: 5, freshUntil, tags: undefined })
    }
    expect(codec.decodeEnvelope(codec.encode(1))).toStrictEqual({ value: 1, schemaVersion: 2, freshUntil: undefined, tags: undefined })
    for (const meta of [{ freshUntil: -1 }, { freshUntil: 1.5 }, { freshUntil: 9e15 }, { schemaVersion: -1 }]) {
      expect((caught(() => codec.encode(1, meta)) as StowageError).code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })

  it('refuses bytes that are not an envelope with typed errors', () => {
    const cases: Array<[unknown, string]> = [
      [new Uint8Array([0x81, 0xa1, 0x61, 0x01]), StowageErrorCode.BAD_MAGIC],
      [new Uint8Array([]), StowageErrorCode.TRUNCATED],
      [new Uint8Array([0xc1, 1]), StowageErrorCode.TRUNCATED],
      [new Uint8Array([0xc1, 5, 0, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      [new Uint8Array([0xc1, 3, 4, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      // Compression id 3 (a dictionary, the payload's CRC) needs 12 bytes of fields.
      [new Uint8Array([0xc1, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.TRUNCATED],
      [new Uint8Array([0xc1, 0, 0, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      [new Uint8Array([0xc1, 1, 9, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      [new Uint8Array([0xc1, 2, 4, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      [new Uint8Array([0xc1, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      // Version 1 had no dictionaries.
      [new Uint8Array([0xc1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      [new Uint8Array([0xc1, 1, 0, 0x80, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      [new Uint8Array([0xc1, 1, 0, 0x04, 0, 0, 0, 0, 0xc0]), StowageErrorCode.UNSUPPORTED_VERSION],
      [new Uint8Array([0xc1, 1, 0, 0x02, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0]), StowageErrorCode.CORRUPT],
      ['not bytes', StowageErrorCode.INVALID_ARGUMENT],
    ]
    for (const [input, code] of cases) {
      const error = caught(() => createCodec().decode(input as Uint8Array))
      expect(StowageError.isInstance(error), String(input)).toBe(true)
      expect((error as StowageError).code).toBe(code)
    }
  })

  it('detects a flipped bit anywhere in an uncompressed envelope', () => {
    const bytes = encode({ a: 'short', n: 12345 })
    for (let i = 0; i < bytes.length * 8; i++) {
      const damaged = bytes.slice()
      damaged[i >> 3] = (damaged[i >> 3] as number) ^ (1 << (i & 7))
      const error = caught(() => createCodec().decode(damaged))
      expect(StowageError.isInstance(error), `bit ${i}`).toBe(true)
    }
  })

  it('detects a flipped bit anywhere in a compressed envelope: the CRC covers the bytes as stored', () => {
    const bytes = createCodec({ compress: 'always' }).encode(text)
    expect(inspect(bytes).compression).toBe('deflate-raw')
    for (let i = 0; i < bytes.length * 8; i++) {
      const damaged = bytes.slice()
      damaged[i >> 3] = (damaged[i >> 3] as number) ^ (1 << (i & 7))
      const error = caught(() => createCodec().decode(damaged))
      expect(StowageError.isInstance(error), `bit ${i}`).toBe(true)
    }
  })

  it('refuses bytes appended after the deflate stream (CHECKSUM_MISMATCH: the CRC covers them)', async () => {
    const bytes = createCodec({ compress: 'always' }).encode(text)
    for (const junk of [[0], [1, 2, 3]]) {
      const longer = new Uint8Array([...bytes, ...junk])
      expect((caught(() => createCodec().decode(longer)) as StowageError).code).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
      await expect(createCodec().decodeAsync(longer)).rejects.toMatchObject({ code: StowageErrorCode.CHECKSUM_MISMATCH })
    }
  })

  it('refuses a value byte changed after sealing', () => {
    const bytes = encode({ a: 1 })
    const resealed = bytes.slice()
    resealed[bytes.length - 1] = 0xc0 // the value 1 becomes nil: the CRC no longer matches
    expect((caught(() => createCodec().decode(resealed)) as StowageError).code).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
  })
})
