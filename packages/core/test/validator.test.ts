import { describe, expect, it } from 'vitest'
import { createCodec, decode, inspect, StowageError, StowageErrorCode, withoutTags, withValidator, type HttpValidator } from '../src/index.js'
import { goldenCompressedV1 } from './golden-vectors-v1.js'
import { caught, fromHex, hex, sealRaw } from './helpers.js'
import { sameValue } from './same-value.js'

const etag: HttpValidator = { kind: 'etag', value: 'W/"5e-1a2b3c"' }
const date: HttpValidator = { kind: 'last-modified', value: 'Tue, 24 Nov 2026 10:00:00 GMT' }
const code = (fn: () => unknown) => (caught(fn) as StowageError).code
const rows = Array.from({ length: 60 }, (_, i) => ({ id: i, name: `row ${i}`, url: `https://example.com/rows/${i}` }))

describe('withValidator: a server’s ETag or Last-Modified kept in the header', () => {
  it('is read back by inspect, leaves the value and the other metadata alone, and can be dropped again', () => {
    const tags = new Map([['rows', 3]])
    const bytes = createCodec().encode(rows, { schemaVersion: 4, freshUntil: 1767225600000, tags })
    for (const validator of [etag, date]) {
      const kept = withValidator(bytes, validator)
      expect(inspect(kept)).toMatchObject({ validator, schemaVersion: 4, freshUntil: 1767225600000, tags, compression: inspect(bytes).compression, formatVersion: 3 })
      expect(sameValue(decode(kept), rows)).toBeUndefined()
      expect(inspect(withoutTags(kept))).toMatchObject({ validator, tags: undefined })
      const dropped = withValidator(kept, undefined)
      expect(hex(dropped)).toBe(hex(bytes))
    }
    expect(withValidator(bytes, undefined)).toBe(bytes)
    expect(inspect(bytes).validator).toBeUndefined()
  })

  it('pins the header bytes: flag bit 3, kind, length, value', () => {
    const kept = withValidator(createCodec({ compress: 'never' }).encode(1), { kind: 'etag', value: '"a"' })
    expect(hex(kept.subarray(0, 9))).toBe('c10200080103226122')
  })

  it('refuses a bad validator as INVALID_ARGUMENT and a validator for format version 1 as UNSUPPORTED_VERSION; damaged bytes still fail their check after it', () => {
    const bytes = createCodec().encode(rows)
    for (const bad of [{ kind: 'etag', value: '' }, { kind: 'etag', value: 'x'.repeat(256) }, { kind: 'etag', value: 'é' }, { kind: 'etag', value: 'a\nb' }, { kind: 'age', value: '1' }, null]) {
      expect(code(() => withValidator(bytes, bad as HttpValidator))).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
    const damaged = bytes.slice()
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 1
    // The payload is not read again: damaged bytes keep a CRC that fails, under the new header.
    expect(code(() => decode(withValidator(damaged, etag)))).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
    // Version 1 has no validator field: refused, rather than bytes that no reader takes.
    const v1 = fromHex(goldenCompressedV1)
    expect(code(() => withValidator(v1, etag))).toBe(StowageErrorCode.UNSUPPORTED_VERSION)
    expect(withValidator(v1, undefined)).toBe(v1)
  })

  it('reads hostile validator fields as CORRUPT or TRUNCATED, and refuses the flag in version 1', () => {
    const header = (...field: number[]) => new Uint8Array([0xc1, 2, 0, 0x08, ...field, 0, 0, 0, 0, 0xc0])
    expect(code(() => inspect(header(3, 1, 0x41)))).toBe(StowageErrorCode.CORRUPT) // no kind 3
    expect(code(() => inspect(header(1, 0)))).toBe(StowageErrorCode.CORRUPT) // empty
    expect(code(() => inspect(header(1, 1, 0x0a)))).toBe(StowageErrorCode.CORRUPT) // a control byte
    expect(code(() => inspect(new Uint8Array([0xc1, 2, 0, 0x08, 1, 200, 0x41])))).toBe(StowageErrorCode.TRUNCATED)
    expect(code(() => inspect(new Uint8Array([0xc1, 1, 0, 0x08, 1, 1, 0x41, 0, 0, 0, 0, 0xc0])))).toBe(StowageErrorCode.UNSUPPORTED_VERSION)
  })
})

describe('inflateEnvelope: a compressed envelope stored inflated', () => {
  it('keeps the value and every metadata field, sync and async, and returns an uncompressed envelope as it is', async () => {
    const codec = createCodec({ compress: 'always' })
    const bytes = withValidator(codec.encode(rows, { schemaVersion: 2, freshUntil: 1767225600000, tags: new Map([['t', 9]]) }), etag)
    for (const inflated of [codec.inflateEnvelope(bytes), await codec.inflateEnvelopeAsync(bytes)]) {
      const { compression, payloadLength, ...rest } = inspect(inflated)
      expect(compression).toBe('none')
      expect(payloadLength).toBe(inspect(bytes).payloadLength)
      expect(rest).toMatchObject({ schemaVersion: 2, freshUntil: 1767225600000, tags: new Map([['t', 9]]), validator: etag, formatVersion: 3 })
      expect(sameValue(decode(inflated), rows)).toBeUndefined()
    }
    const plain = createCodec({ compress: 'never' }).encode(rows)
    expect(codec.inflateEnvelope(plain)).toBe(plain)
  })

  it('inflates dictionary envelopes with the codec’s dictionaries and version-1 envelopes into version 2', () => {
    const dictionary = new TextEncoder().encode(JSON.stringify(rows.slice(0, 10)))
    const codec = createCodec({ dictionaries: [dictionary], compress: 'always' })
    const small = { id: 1, name: 'row 1', url: 'https://example.com/rows/1' }
    const inflated = codec.inflateEnvelope(codec.encode(small))
    expect(inspect(inflated).compression).toBe('none')
    expect(decode(inflated)).toStrictEqual(small)
    expect(code(() => createCodec().inflateEnvelope(codec.encode(small)))).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    const v1 = codec.inflateEnvelope(fromHex(goldenCompressedV1))
    expect(inspect(v1)).toMatchObject({ formatVersion: 2, compression: 'none' })
    expect(decode(v1)).toBe('abc'.repeat(100))
  })

  it('applies the limits of decode and checks the CRC before inflating', () => {
    const bytes = createCodec({ compress: 'always' }).encode('x'.repeat(100_000))
    expect(code(() => createCodec({ maxBytes: 1000 }).inflateEnvelope(bytes))).toBe(StowageErrorCode.LIMIT_EXCEEDED)
    const damaged = bytes.slice()
    damaged[20] = (damaged[20] as number) ^ 1
    expect(code(() => createCodec().inflateEnvelope(damaged))).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
    expect(code(() => createCodec().inflateEnvelope(sealRaw(new Uint8Array([0xc0]), 9)))).toBe(StowageErrorCode.UNSUPPORTED_VERSION)
    // Version 1's CRC covers the inflated payload: checked once inflated, before anything is sealed.
    const v1 = fromHex(goldenCompressedV1)
    const crc = inspect(v1).crc
    const at = v1.findIndex((_, i) => i + 4 <= v1.length && new DataView(v1.buffer, v1.byteOffset + i, 4).getUint32(0) === crc)
    expect(at).toBeGreaterThan(0)
    const wrongCrc = v1.slice()
    wrongCrc[at + 3] = (wrongCrc[at + 3] as number) ^ 1
    expect(code(() => createCodec().inflateEnvelope(wrongCrc))).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
  })
})
