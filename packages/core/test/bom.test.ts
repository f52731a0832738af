// A leading U+FEFF is part of a string, never a byte order mark to drop: every path a string takes
// through the codec keeps it (values, keys, shape and RECORDS keys, Map keys, tags, dictionary
// deflate), with the platform of this run (Node's or, in Chromium, the portable one) and the
// portable platform side by side.
import { describe, expect, it } from 'vitest'
import { createCodecWith } from '../src/codec/codec.js'
import { platform as portablePlatform } from '../src/codec/platform/portable.js'
import { createCache, createCodec, trainDictionary, type Codec } from '../src/index.js'
import { sameValue } from './same-value.js'

const BOM = '\uFEFF'
const long = `${BOM}${'é'.repeat(20_000)}`
const values: Array<[string, unknown]> = [
  ['a short string', `${BOM}hello`],
  ['the mark alone', BOM],
  ['a long string', long],
  ['an ASCII-looking long string', `${BOM}${'x'.repeat(10_000)}`],
  ['object keys, beside the same key without it', { [`${BOM}id`]: 1, id: 2 }],
  ['a long key (past the key cache)', { [`${BOM}${'k'.repeat(40)}`]: true }],
  ['shape keys (objects that repeat)', Array.from({ length: 3 }, (_, i) => ({ wrap: { [`${BOM}a`]: i, b: i } }))],
  ['a shape at first sight (8 keys)', { o: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`${BOM}${i}`, i])) }],
  ['RECORDS keys and values', Array.from({ length: 50 }, (_, i) => ({ [`${BOM}name`]: `${BOM}${i}`, n: i }))],
  ['DICT keys', { [`${BOM}a`]: { x: 1 }, b: { x: 2 } }],
  ['Map keys and Set members', new Map<unknown, unknown>([[`${BOM}k`, new Set([`${BOM}m`, 'm'])]])],
]

const dictionary = trainDictionary(values.map(([, v]) => v).filter((v) => typeof v === 'object'), { size: 1024 })
const codecs: Array<[string, Codec]> = [
  ['this platform', createCodec()],
  ['this platform, deflated', createCodec({ compress: 'always' })],
  ['this platform, with a dictionary', createCodec({ dictionaries: [dictionary], compress: 'always' })],
  ['portable', createCodecWith(portablePlatform)],
  ['portable, deflated', createCodecWith(portablePlatform, { compress: 'always' })],
  ['portable, with a dictionary', createCodecWith(portablePlatform, { dictionaries: [dictionary], compress: 'always' })],
]

describe('a leading U+FEFF', () => {
  for (const [codecName, codec] of codecs) {
    it(`is kept in every string, ${codecName}`, async () => {
      for (const [name, value] of values) {
        expect(sameValue(codec.decode(codec.encode(value)), value), name).toBeUndefined()
        expect(sameValue(await codec.decodeAsync(await codec.encodeAsync(value)), value), name).toBeUndefined()
      }
    })

    it(`is kept in tags, also beside the same tag without it, ${codecName}`, () => {
      const tags = new Map([[`${BOM}user`, 1], ['user', 2], [BOM, 3]])
      expect(codec.decodeEnvelope(codec.encode('v', { tags })).tags).toStrictEqual(tags)
    })
  }

  it('through a Cache: a tagged entry reads back, and deleteByTag tells the two tags apart', async () => {
    const cache = createCache({ namespace: 'bom' })
    await cache.set('k', { [`${BOM}id`]: 1 }, { tags: [`${BOM}user`] })
    await cache.set('other', 2, { tags: ['user'] })
    expect(await cache.get('k')).toStrictEqual({ [`${BOM}id`]: 1 })
    await cache.deleteByTag('user')
    expect(await cache.get('k')).toStrictEqual({ [`${BOM}id`]: 1 })
    expect(await cache.get('other')).toBeUndefined()
    await cache.deleteByTag(`${BOM}user`)
    expect(await cache.get('k')).toBeUndefined()
  })
})
