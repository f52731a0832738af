import { describe, expect, it } from 'vitest'
import * as api from '../src/index.js'
import { createCodec, inspect, MAX_TAG_BYTES, MAX_TAGS, StowageErrorCode } from '../src/index.js'
import { fromHex } from './helpers.js'
import { goldenVectors } from './golden-vectors.js'

const codec = createCodec()
const value = { list: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item ${i}` })) }

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (e) {
    return (e as { code?: string }).code
  }
  return undefined
}

describe('tag stamp in the envelope', () => {
  it('round-trips with the value, compressed or not, sync and async, beside the other metadata', async () => {
    const tags = new Map([['user:1', 7], ['team', 0], ['🏷 ünïcode', 0xffffffff]])
    const meta = { schemaVersion: 3, freshUntil: 1767225600123, tags }
    for (const c of [codec, createCodec({ compress: 'never' }), createCodec({ compress: 'always' })]) {
      const bytes = c.encode(value, meta)
      expect(inspect(bytes)).toMatchObject({ schemaVersion: 3, freshUntil: 1767225600123, tags })
      expect(c.decodeEnvelope(bytes)).toStrictEqual({ value, ...meta })
      const async = await c.encodeEnvelopeAsync(value, meta)
      expect(await c.decodeEnvelopeAsync(async.bytes)).toStrictEqual({ value, ...meta })
    }
    expect(codec.decodeEnvelope(codec.encode(1)).tags).toBeUndefined()
  })

  it('holds the largest stamp (255 tags of 255 bytes), longer than the room left for a header', () => {
    const tags = new Map(Array.from({ length: MAX_TAGS }, (_, i) => [`${i}`.padStart(MAX_TAG_BYTES, 'x'), i]))
    for (const small of ['tiny', value]) {
      const bytes = codec.encode(small, { tags })
      expect(bytes.length).toBeGreaterThan(MAX_TAGS * (MAX_TAG_BYTES + 5))
      expect(codec.decodeEnvelope(bytes)).toStrictEqual({ value: small, schemaVersion: undefined, freshUntil: undefined, tags })
    }
  })

  it('refuses tags it could not write back: not a Map, none, too many, empty, too long, lone surrogates, bad generations', () => {
    const bad: unknown[] = [
      { a: 1 },
      [['a', 1]],
      new Map(),
      new Map(Array.from({ length: MAX_TAGS + 1 }, (_, i) => [`t${i}`, 0])),
      new Map([['', 0]]),
      new Map([['x'.repeat(MAX_TAG_BYTES + 1), 0]]),
      new Map([['é'.repeat(128), 0]]),
      new Map([['a\ud800', 0]]),
      new Map([[1, 0]]),
      new Map([['a', -1]]),
      new Map([['a', 2 ** 32]]),
      new Map([['a', 1.5]]),
      new Map([['a', '1']]),
    ]
    for (const tags of bad) {
      expect(codeOf(() => codec.encode(1, { tags: tags as Map<string, number> })), String(tags)).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })

  it('refuses damaged stamps with typed errors: cut anywhere, zero count or length, not UTF-8, a tag twice, in a version 1 envelope', () => {
    const pinned = fromHex(goldenVectors['tags a:1, é:4294967295'] as string)
    // The stamp runs from byte 4 to byte 17; the CRC follows.
    for (let end = 5; end < 18; end++) {
      expect(codeOf(() => inspect(pinned.subarray(0, end))), `cut at ${end}`).toBe(StowageErrorCode.TRUNCATED)
    }
    const changed = (at: number, byte: number) => {
      const copy = pinned.slice()
      copy[at] = byte
      return copy
    }
    expect(codeOf(() => inspect(changed(4, 0)))).toBe(StowageErrorCode.CORRUPT) // no tags
    expect(codeOf(() => inspect(changed(5, 0)))).toBe(StowageErrorCode.CORRUPT) // empty tag
    expect(codeOf(() => inspect(changed(12, 0xc3).fill(0xff, 13, 14)))).toBe(StowageErrorCode.CORRUPT) // 0xc3 0xff is not UTF-8
    const twice = fromHex('c1020004020161000000010161000000020000000081a17601')
    expect(codeOf(() => inspect(twice))).toBe(StowageErrorCode.CORRUPT)
    expect(codeOf(() => inspect(changed(1, 1)))).toBe(StowageErrorCode.UNSUPPORTED_VERSION)
    // A stamp whose bytes changed but stay well-formed fails the CRC, which covers the header.
    expect(codeOf(() => codec.decode(changed(9, 2)))).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
  })
})

describe('withoutTags', () => {
  it('drops the stamp and keeps the payload and other metadata, with a CRC that checks; untagged bytes come back as they are', () => {
    const { withoutTags } = api
    const meta = { schemaVersion: 4, freshUntil: 1767225600123, tags: new Map([['t', 1]]) }
    for (const c of [createCodec({ compress: 'never' }), createCodec({ compress: 'always' })]) {
      const tagged = c.encode(value, meta)
      const plain = withoutTags(tagged)
      expect(inspect(plain)).toMatchObject({ schemaVersion: 4, freshUntil: 1767225600123, tags: undefined, compression: inspect(tagged).compression })
      expect(c.decode(plain)).toStrictEqual(value)
      expect(c.encode(value, { schemaVersion: 4, freshUntil: 1767225600123 })).toStrictEqual(plain)
      expect(withoutTags(plain)).toBe(plain)
      // The payload is not read again: damaged bytes keep a CRC that fails, under the new header.
      tagged[tagged.length - 1] = (tagged[tagged.length - 1] as number) ^ 1
      expect(codeOf(() => c.decode(withoutTags(tagged)))).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
      // Damage in the stamp itself, which withoutTags drops: the CRC carried over still fails.
      const stamped = c.encode(value, { tags: new Map([['tag-name', 1]]) })
      const name = new TextEncoder().encode('tag-name')
      const at = stamped.findIndex((_, i) => name.every((b, j) => stamped[i + j] === b))
      expect(at).toBeGreaterThan(0)
      stamped[at] = 'T'.charCodeAt(0)
      expect(inspect(stamped).tags?.has('Tag-name')).toBe(true)
      expect(codeOf(() => c.decode(withoutTags(stamped)))).toBe(StowageErrorCode.CHECKSUM_MISMATCH)
    }
  })
})
