// decodeAsync's `inflate` and encodeAsync's `deflate` options: the caller's own inflate and deflate
// (a Worker in @stowage/persist), with the envelope's checks and policy kept by the codec.
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { createCodec, inspect, StowageError, StowageErrorCode, trainDictionary, type AsyncDeflate, type AsyncInflate } from '../src/index.js'

const value = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ['a', 'b'] })) }
const codec = createCodec({ compress: 'always' })
const envelope = codec.encode(value)

const counting = () => {
  const calls: number[] = []
  const inflate: AsyncInflate = async (deflated, payloadLength) => {
    calls.push(payloadLength)
    return new Uint8Array(inflateRawSync(deflated))
  }
  return { calls, inflate }
}

describe('decodeAsync with an inflate of the caller', () => {
  it('inflates through it and decodes the same value', async () => {
    const { calls, inflate } = counting()
    expect(await codec.decodeAsync(envelope, { inflate })).toStrictEqual(value)
    expect(await codec.decodeEnvelopeAsync(envelope, { inflate })).toMatchObject({ value })
    expect(calls).toHaveLength(2)
  })

  it('checks the CRC-32 before calling it', async () => {
    const { calls, inflate } = counting()
    const flipped = new Uint8Array(envelope) // a copy (Buffer.slice would be a view)
    flipped[flipped.length - 5]! ^= 0x10
    await expect(codec.decodeAsync(flipped, { inflate })).rejects.toMatchObject({ code: StowageErrorCode.CHECKSUM_MISMATCH })
    expect(calls).toHaveLength(0)
  })

  it('refuses a result of another length as CORRUPT', async () => {
    const short: AsyncInflate = async (deflated) => new Uint8Array(inflateRawSync(deflated)).subarray(1)
    const notBytes = (async () => 'text') as unknown as AsyncInflate
    await expect(codec.decodeAsync(envelope, { inflate: short })).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    await expect(codec.decodeAsync(envelope, { inflate: notBytes })).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
  })

  it('passes its rejection on as it is, so that a failed worker is not taken for damaged bytes', async () => {
    const gone = new Error('the worker stopped')
    const error = await codec.decodeAsync(envelope, { inflate: () => Promise.reject(gone) }).catch((e: unknown) => e)
    expect(error).toBe(gone)
    expect(error).not.toBeInstanceOf(StowageError)
  })

  it('is not used for an uncompressed envelope, nor for one deflated with a dictionary', async () => {
    const { calls, inflate } = counting()
    expect(await createCodec({ compress: 'never' }).decodeAsync(createCodec({ compress: 'never' }).encode(value), { inflate })).toStrictEqual(value)
    const dictionary = trainDictionary(Array.from({ length: 100 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ['a', 'b'] })), { size: 1024 })
    const withDictionary = createCodec({ compress: 'always', dictionaries: [dictionary] })
    expect(await withDictionary.decodeAsync(withDictionary.encode(value), { inflate })).toStrictEqual(value)
    expect(calls).toHaveLength(0)
  })
})

describe('encodeAsync with a deflate of the caller', () => {
  const counting = () => {
    const sizes: number[] = []
    const deflate: AsyncDeflate = async (payload) => {
      sizes.push(payload.length)
      return new Uint8Array(deflateRawSync(payload, { level: 9 }))
    }
    return { sizes, deflate }
  }

  it('deflates through it whenever the codec deflates, and any reader reads the result', async () => {
    const { sizes, deflate } = counting()
    const auto = createCodec({ compressThreshold: 1024 })
    const bytes = await auto.encodeAsync(value, undefined, { deflate })
    expect(inspect(bytes).compression).toBe('deflate-raw')
    expect(sizes).toStrictEqual([inspect(bytes).payloadLength])
    expect(createCodec().decode(bytes)).toStrictEqual(value)
    const { bytes: again, payloadLength } = await auto.encodeEnvelopeAsync(value, { schemaVersion: 7 }, { deflate })
    expect(inspect(again)).toMatchObject({ schemaVersion: 7, payloadLength, compression: 'deflate-raw' })
  })

  it('is not used under compressThreshold, with compress never, or with a dictionary', async () => {
    const { sizes, deflate } = counting()
    expect(inspect(await createCodec({ compressThreshold: 1024 }).encodeAsync({ small: 1 }, undefined, { deflate })).compression).toBe('none')
    expect(inspect(await createCodec({ compress: 'never' }).encodeAsync(value, undefined, { deflate })).compression).toBe('none')
    const dictionary = trainDictionary(Array.from({ length: 100 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ['a', 'b'] })), { size: 1024 })
    expect(inspect(await createCodec({ dictionaries: [dictionary] }).encodeAsync(value, undefined, { deflate })).compression).toBe('deflate-raw-dictionary')
    expect(sizes).toHaveLength(0)
  })

  it('keeps the payload uncompressed when what it returns saves too little', async () => {
    const stored: AsyncDeflate = async (payload) => new Uint8Array(deflateRawSync(payload, { level: 0 }))
    const bytes = await createCodec({ compressThreshold: 1024 }).encodeAsync(value, undefined, { deflate: stored })
    expect(inspect(bytes).compression).toBe('none')
    expect(createCodec().decode(bytes)).toStrictEqual(value)
  })

  it('hands each call in flight a payload of its own, and reuses a payload\'s memory only once its deflate has resolved', async () => {
    const auto = createCodec({ compress: 'always' })
    const values = Array.from({ length: 6 }, (_, v) => ({ rows: value.rows.map((row) => ({ ...row, v })) }))
    // Deflates later, in the reverse order of the calls: every payload is still in use when the
    // next call copies its own, and each must still hold its own bytes when it is deflated.
    const lent: Uint8Array[] = []
    const release: (() => void)[] = []
    const slow: AsyncDeflate = (payload) => {
      lent.push(payload)
      const kept = payload.slice()
      return new Promise((resolve, reject) => {
        release.push(() => (payload.every((b, i) => b === kept[i]) ? resolve(new Uint8Array(deflateRawSync(payload))) : reject(new Error('a payload changed while its deflate ran'))))
      })
    }
    const encoding = values.map((v) => auto.encodeAsync(v, undefined, { deflate: slow }))
    await new Promise((r) => setTimeout(r, 0))
    expect(new Set(lent.map((p) => p.buffer)).size).toBe(values.length)
    for (const go of release.reverse()) go()
    const bytes = await Promise.all(encoding)
    expect(bytes.map((b) => createCodec().decode(b))).toStrictEqual(values)
    // Later calls reuse that memory, and their envelopes stay right.
    const seen = new Set(lent.map((p) => p.buffer))
    const { deflate } = counting()
    const later: AsyncDeflate = (payload) => {
      lent.push(payload)
      return deflate(payload)
    }
    for (const v of values) expect(createCodec().decode(await auto.encodeAsync(v, undefined, { deflate: later }))).toStrictEqual(v)
    expect(lent.slice(values.length).some((p) => seen.has(p.buffer))).toBe(true)
    // The envelopes handed out before are not touched by the calls that reused the memory.
    expect(bytes.map((b) => createCodec().decode(b))).toStrictEqual(values)
  })

  it('passes its rejection on as it is, and refuses a result that is not bytes', async () => {
    const gone = new Error('the worker stopped')
    expect(await createCodec({ compress: 'always' }).encodeAsync(value, undefined, { deflate: () => Promise.reject(gone) }).catch((e: unknown) => e)).toBe(gone)
    const text = (async () => 'deflated') as unknown as AsyncDeflate
    await expect(createCodec({ compress: 'always' }).encodeAsync(value, undefined, { deflate: text })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
  })
})
