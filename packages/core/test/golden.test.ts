import { describe, expect, it } from 'vitest'
import { createCodec, decode, inspect } from '../src/index.js'
import { goldenValues } from './golden-values.js'
import { goldenCompressed, goldenVectors } from './golden-vectors.js'
import { fromHex, hex } from './helpers.js'
import { sameValue } from './same-value.js'

describe('golden vectors (format version 1)', () => {
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

  it('a pinned compressed envelope still decodes', () => {
    const bytes = fromHex(goldenCompressed)
    expect(inspect(bytes)).toMatchObject({ compression: 'deflate-raw', payloadLength: 303 })
    expect(decode(bytes)).toBe('abc'.repeat(100))
  })
})
