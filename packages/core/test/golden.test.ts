import { describe, expect, it } from 'vitest'
import { createCodec, decode, FORMAT_VERSION, inspect } from '../src/index.js'
import { goldenValues } from './golden-values.js'
import { goldenCheckedDictionaryEnvelope, goldenCompressed, goldenDictionaryEnvelope, goldenDictionaryText, goldenVectors } from './golden-vectors.js'
import { goldenCompressedV1, goldenVectorsV1 } from './golden-vectors-v1.js'
import { goldenValuesV3, goldenVectorsV3 } from './golden-vectors-v3.js'
import { goldenValuesV4, goldenVectorsV4 } from './golden-vectors-v4.js'
import { fromHex, hex } from './helpers.js'
import { sameValue } from './same-value.js'

describe(`golden vectors of format version ${FORMAT_VERSION} (an ASCII string table and a text table)`, () => {
  const never = createCodec({ compress: 'never' })
  for (const [name, make] of Object.entries(goldenValuesV4)) {
    it(`${name}: encodes to the pinned bytes and decodes back`, () => {
      const pinned = goldenVectorsV4[name] as string
      expect(inspect(fromHex(pinned)).formatVersion).toBe(4)
      expect(hex(never.encode(make()))).toBe(pinned)
      expect(sameValue(decode(fromHex(pinned)), make())).toBeUndefined()
    })
  }

  it('the same values written as format 3 or 2 (formatVersion: 3 or 2) decode to the same values', () => {
    for (const formatVersion of [3, 2] as const) {
      const older = createCodec({ compress: 'never', formatVersion })
      for (const make of Object.values(goldenValuesV4)) {
        const bytes = older.encode(make())
        expect(inspect(bytes).formatVersion).toBe(formatVersion)
        expect(sameValue(decode(bytes), make())).toBeUndefined()
      }
    }
  })
})

describe('golden vectors of format version 3 (one string table; still written when every table string is ASCII)', () => {
  const three = createCodec({ compress: 'never', formatVersion: 3 })
  const never = createCodec({ compress: 'never' })
  for (const [name, make] of Object.entries(goldenValuesV3)) {
    it(`${name}: encodes to the pinned bytes with formatVersion 3 and decodes back`, () => {
      const pinned = goldenVectorsV3[name] as string
      expect(inspect(fromHex(pinned)).formatVersion).toBe(3)
      expect(hex(three.encode(make()))).toBe(pinned)
      expect(sameValue(decode(fromHex(pinned)), make())).toBeUndefined()
    })
  }

  it('a value whose table strings are all ASCII is written as these bytes by the default codec too', () => {
    const pinned = goldenVectorsV3['strings in shapes, maps, sets and records'] as string
    expect(hex(never.encode((goldenValuesV3['strings in shapes, maps, sets and records'] as () => unknown)()))).toBe(pinned)
  })

  it('the same values written as format 2 (formatVersion: 2) decode to the same values', () => {
    const two = createCodec({ compress: 'never', formatVersion: 2 })
    for (const make of Object.values(goldenValuesV3)) {
      const bytes = two.encode(make())
      expect(inspect(bytes).formatVersion).toBe(2)
      expect(sameValue(decode(bytes), make())).toBeUndefined()
    }
  })
})

describe('golden vectors of format version 2 (values with fewer than 32 strings are still written so)', () => {
  const never = createCodec({ compress: 'never' })
  for (const [name, make] of Object.entries(goldenValues)) {
    it(`${name}: encodes to the pinned bytes and decodes back`, () => {
      const pinned = goldenVectors[name] as string
      expect(hex(never.encode(make()))).toBe(pinned)
      expect(sameValue(decode(fromHex(pinned)), make())).toBeUndefined()
    })
  }

  it('schema version: pinned bytes', () => {
    const pinned = goldenVectors['schema version 3'] as string
    expect(hex(createCodec({ compress: 'never', schemaVersion: 3 }).encode({ v: 3 }))).toBe(pinned)
    expect(inspect(fromHex(pinned)).schemaVersion).toBe(3)
  })

  it('schema version and fresh-until time: pinned bytes', () => {
    const pinned = goldenVectors['schema version 9, fresh until 1767225600123'] as string
    expect(hex(createCodec({ compress: 'never' }).encode({ v: 9 }, { schemaVersion: 9, freshUntil: 1767225600123 }))).toBe(pinned)
    expect(inspect(fromHex(pinned))).toMatchObject({ schemaVersion: 9, freshUntil: 1767225600123 })
  })

  it('tag stamp: pinned bytes', () => {
    const pinned = goldenVectors['tags a:1, é:4294967295'] as string
    const tags = new Map([['a', 1], ['é', 0xffffffff]])
    expect(hex(createCodec({ compress: 'never' }).encode({ v: 1 }, { tags }))).toBe(pinned)
    expect(inspect(fromHex(pinned)).tags).toStrictEqual(tags)
  })

  it('a pinned compressed envelope still decodes', () => {
    const bytes = fromHex(goldenCompressed)
    expect(inspect(bytes)).toMatchObject({ formatVersion: 2, compression: 'deflate-raw', payloadLength: 303 })
    expect(decode(bytes)).toBe('abc'.repeat(100))
  })

  it('a pinned envelope deflated against a dictionary by Node\'s zlib decodes, sync and async', async () => {
    const bytes = fromHex(goldenDictionaryEnvelope)
    const codec = createCodec({ dictionaries: [new TextEncoder().encode(goldenDictionaryText)] })
    const token = { userId: 'u_78d598', token: '00000000000000000000026a08b35b68', scopes: ['read:posts', 'write:comments'], expiresAt: 1767225601000 }
    expect(inspect(bytes)).toMatchObject({ compression: 'deflate-raw-dictionary', payloadLength: 110, payloadCrc: undefined })
    expect(codec.decode(bytes)).toStrictEqual(token)
    expect(await codec.decodeAsync(bytes)).toStrictEqual(token)
    const checked = fromHex(goldenCheckedDictionaryEnvelope)
    expect([...checked.subarray(0, 4)]).toStrictEqual([0xc1, 2, 3, 0])
    expect(inspect(checked)).toMatchObject({ compression: 'deflate-raw-dictionary', payloadLength: 110, payloadCrc: 0xf78fd185 })
    expect(codec.decode(checked)).toStrictEqual(token)
    expect(await codec.decodeAsync(checked)).toStrictEqual(token)
  })
})

describe('golden vectors of format version 1 (Stowage 0.1) are still read', () => {
  for (const [name, pinned] of Object.entries(goldenVectorsV1)) {
    const make = goldenValues[name]
    if (make === undefined) continue
    it(`${name}: decodes to the same value`, () => {
      expect(inspect(fromHex(pinned)).formatVersion).toBe(1)
      expect(sameValue(decode(fromHex(pinned)), make())).toBeUndefined()
    })
  }

  it('metadata and a compressed envelope', () => {
    expect(inspect(fromHex(goldenVectorsV1['schema version 9, fresh until 1767225600123'] as string))).toMatchObject({ schemaVersion: 9, freshUntil: 1767225600123 })
    expect(decode(fromHex(goldenVectorsV1['schema version 3'] as string))).toStrictEqual({ v: 3 })
    expect(inspect(fromHex(goldenCompressedV1))).toMatchObject({ formatVersion: 1, compression: 'deflate-raw', payloadLength: 303 })
    expect(decode(fromHex(goldenCompressedV1))).toBe('abc'.repeat(100))
  })
})
