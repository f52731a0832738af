import { describe, expect, it } from 'vitest'
import { createCodec, DEFAULT_DICTIONARY_SIZE, inspect, StowageError, StowageErrorCode, trainDictionary } from '../src/index.js'
import { caught, crc32 } from './helpers.js'
import { sameValue } from './same-value.js'

const token = (i: number) => ({ userId: `u_${(i * 7919).toString(16)}`, token: (i * 2654435761).toString(16).padStart(32, '0'), scopes: ['read:posts', 'write:comments'], expiresAt: 1767225600000 + i })
const samples = Array.from({ length: 300 }, (_, i) => token(i))

describe('trainDictionary', () => {
  it('is deterministic, respects the size and puts what it found in the samples', () => {
    const a = trainDictionary(samples, { size: 2048 })
    expect(a).toStrictEqual(trainDictionary(samples, { size: 2048 }))
    expect(a.length).toBeGreaterThan(0)
    expect(a.length).toBeLessThanOrEqual(2048)
    expect(trainDictionary(samples).length).toBeLessThanOrEqual(DEFAULT_DICTIONARY_SIZE)
    expect(new TextDecoder('latin1').decode(a)).toContain('write:comments')
  })

  it('refuses samples too small to learn from (none holds 8 bytes of MessagePack) with INVALID_ARGUMENT, never an empty dictionary', () => {
    for (const tiny of [[{ a: 1 }, { a: 2 }], [[1], [2], [3]], [{}], [{ ok: true }]]) {
      const e = caught(() => trainDictionary(tiny)) as StowageError
      expect(e.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
      expect(e.message).toContain('nothing to learn from')
    }
    // One sample large enough among tiny ones is something to learn from.
    expect(trainDictionary([{ a: 1 }, { login: 'octocat', url: 'https://api.github.com/users/octocat' }]).length).toBeGreaterThan(0)
  })

  it('refuses bad input with INVALID_ARGUMENT', () => {
    for (const [input, options] of [[[], undefined], ['x', undefined], [samples, { size: 100 }], [samples, { size: 40_000 }], [samples, { size: 1.5 }]] as const) {
      expect((caught(() => trainDictionary(input as never, options as never)) as StowageError).code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })

  it('makes values it never saw smaller, and they read back exactly', () => {
    const dictionary = trainDictionary(samples, { size: 2048 })
    const withDict = createCodec({ dictionaries: [dictionary] })
    const without = createCodec()
    for (let i = 1000; i < 1020; i++) {
      const bytes = withDict.encode(token(i))
      expect(inspect(bytes)).toMatchObject({ compression: 'deflate-raw-dictionary', dictionaryId: crc32(dictionary) })
      expect(bytes.length).toBeLessThan(without.encode(token(i)).length * 0.7)
      expect(sameValue(withDict.decode(bytes), token(i))).toBeUndefined()
    }
  })

  it('reads envelopes of every dictionary it lists, writes with the first, and refuses one it lacks', async () => {
    const old = trainDictionary(samples.slice(0, 100), { size: 1024 })
    const current = trainDictionary(samples.slice(100), { size: 1024 })
    const before = createCodec({ dictionaries: [old] }).encode(token(5000))
    const rotated = createCodec({ dictionaries: [current, old] })
    expect(rotated.decode(before)).toStrictEqual(token(5000))
    expect(inspect(rotated.encode(token(5001))).dictionaryId).toBe(crc32(current))
    const error = caught(() => createCodec().decode(before)) as StowageError
    expect(error.code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    expect(error.message).toContain(crc32(old).toString(16).padStart(8, '0'))
    await expect(createCodec({ dictionaries: [current] }).decodeAsync(before)).rejects.toMatchObject({ code: StowageErrorCode.UNSUPPORTED_TYPE })
  })
})

// `bytes` with its last 4 bytes changed so that its CRC-32 is `target`: CRC-32 is linear over
// GF(2) for a fixed length, so flipping the last 32 bits reaches every CRC (Gaussian elimination).
function forgeCrc(bytes: Uint8Array, target: number): Uint8Array {
  const out = bytes.slice()
  const flip = (bit: number) => (out[out.length - 4 + (bit >> 3)]! ^= 1 << (bit & 7))
  const base = crc32(out)
  // rows: [effect on the CRC, which bits make it]
  const rows: Array<[number, number]> = []
  for (let bit = 0; bit < 32; bit++) {
    flip(bit)
    rows.push([(crc32(out) ^ base) >>> 0, (1 << bit) >>> 0])
    flip(bit)
  }
  let want = (target ^ base) >>> 0
  let bits = 0
  for (let pivot = 31; pivot >= 0; pivot--) {
    const mask = (1 << pivot) >>> 0
    const row = rows.findIndex(([effect]) => (effect & mask) !== 0)
    if (row < 0) continue
    const [effect, which] = rows.splice(row, 1)[0]!
    for (const r of rows) if ((r[0] & mask) !== 0) (r[0] = (r[0] ^ effect) >>> 0), (r[1] = (r[1] ^ which) >>> 0)
    if ((want & mask) !== 0) (want = (want ^ effect) >>> 0), (bits = (bits ^ which) >>> 0)
  }
  for (let bit = 0; bit < 32; bit++) if ((bits >>> bit) & 1) flip(bit)
  return out
}

describe('dictionaries that share an id', () => {
  const right = trainDictionary(samples, { size: 2048 })
  // Other bytes where values refer to the dictionary, the same CRC-32 (the id).
  const changed = new TextEncoder().encode(new TextDecoder('latin1').decode(right).replaceAll('write:comments', 'write:commxnts'))
  const wrong = forgeCrc(changed, crc32(right))

  it('are two dictionaries with one id (the test’s premise)', () => {
    expect(crc32(wrong)).toBe(crc32(right))
    expect(wrong).not.toStrictEqual(right)
  })

  it('a value written with one and read with the other is CHECKSUM_MISMATCH, never other data, sync and async', async () => {
    const bytes = createCodec({ dictionaries: [right] }).encode(token(7000))
    expect(inspect(bytes)).toMatchObject({ compression: 'deflate-raw-dictionary', dictionaryId: crc32(right), payloadCrc: expect.any(Number) })
    const reader = createCodec({ dictionaries: [wrong] })
    const error = caught(() => reader.decode(bytes)) as StowageError
    expect(error.code).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
    expect(error.message).toContain('other bytes (payload CRC-32 mismatch)')
    await expect(reader.decodeAsync(bytes)).rejects.toMatchObject({ code: StowageErrorCode.CHECKSUM_MISMATCH })
    expect(() => reader.inflateEnvelope(bytes)).toThrow(expect.objectContaining({ code: StowageErrorCode.CHECKSUM_MISMATCH }))
    expect(createCodec({ dictionaries: [right] }).decode(bytes)).toStrictEqual(token(7000))
  })

  it('formatVersion 2 writes as Stowage 0.2 did (compression id 2, no payload CRC), where a wrong dictionary goes unnoticed by the envelope', () => {
    const bytes = createCodec({ dictionaries: [right], formatVersion: 2 }).encode(token(7000))
    expect(bytes[2]).toBe(2)
    expect(inspect(bytes).payloadCrc).toBeUndefined()
    let read: unknown
    try {
      read = createCodec({ dictionaries: [wrong] }).decode(bytes)
    } catch (e) {
      read = e
    }
    expect(read).not.toStrictEqual(token(7000))
  })

  it('in one codec are refused with INVALID_ARGUMENT', () => {
    const error = caught(() => createCodec({ dictionaries: [right, wrong] })) as StowageError
    expect(error.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(error.message).toContain('no two with the same id')
  })
})
