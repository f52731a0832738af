// decodeAsync's `inflate` option: a caller-supplied inflate (a Worker in @stowage/persist) of the
// deflate stream, with the envelope's checks kept by the codec.
import { inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { createCodec, StowageError, StowageErrorCode, trainDictionary, type AsyncInflate } from '../src/index.js'

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
