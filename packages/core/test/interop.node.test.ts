import fc from 'fast-check'
import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { bindApi } from '../src/codec/api.js'
import { platform as nodePlatform } from '../src/codec/platform/node.js'
import { platform as portablePlatform } from '../src/codec/platform/portable.js'
import { trainDictionaryWith } from '../src/codec/train-dictionary.js'
import { goldenCompressedV1, goldenVectorsV1 } from './golden-vectors-v1.js'
import { goldenCheckedDictionaryEnvelope, goldenDictionaryEnvelope, goldenDictionaryText } from './golden-vectors.js'
import { goldenValuesV3, goldenVectorsV3 } from './golden-vectors-v3.js'
import { goldenValuesV4, goldenVectorsV4 } from './golden-vectors-v4.js'
import { StowageError, StowageErrorCode } from '../src/index.js'
import { caught, fromHex, sealDeflatedRaw } from './helpers.js'
import { referenceDecoder } from './reference-decoder.js'
import { sameValue } from './same-value.js'

// The two platform files side by side in one process, as the two builds would be.
const node = bindApi(nodePlatform)
const portable = bindApi(portablePlatform)

const values: unknown[] = [
  { post: 'x'.repeat(5000), tags: ['a', 'b'] },
  Array.from({ length: 5000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } })),
  new Map([[1, new Float64Array(3000).fill(1.5)]]),
  'tiny',
]

describe('Node (zlib) and portable (fflate) builds', () => {
  it('read each other’s bytes, sync and async, in both directions', async () => {
    for (const value of values) {
      for (const [writer, reader] of [
        [node, portable],
        [portable, node],
      ] as const) {
        const bytes = writer.encode(value)
        expect(sameValue(reader.decode(bytes), value)).toBeUndefined()
        expect(sameValue(await reader.decodeAsync(bytes), value)).toBeUndefined()
        expect(sameValue(reader.decode(await writer.encodeAsync(value)), value)).toBeUndefined()
      }
    }
  })

  it('give identical bytes sync and async (Node)', async () => {
    for (const value of values) expect(await node.encodeAsync(value)).toStrictEqual(node.encode(value))
  })

  it('give identical bytes when nothing is compressed', () => {
    for (const value of values) {
      const options = { compress: 'never' } as const
      // The same bytes; the Node build hands them out as a Buffer, the portable one as a Uint8Array.
      expect(new Uint8Array(node.encode(value, options))).toStrictEqual(portable.encode(value, options))
    }
  })

  it('write format 4 byte for byte alike (the portable build marks text strings after the fact, the Node build as they come), and read it back', () => {
    const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('é', '😀', 'naïve', 'ascii'))
    const row = fc.record({ id: fc.nat(), name: text, note: fc.option(text, { nil: undefined }) }, { noNullPrototype: true })
    const value = fc.record({
      rows: fc.array(row, { maxLength: 60 }),
      map: fc.array(fc.tuple(fc.nat(50), text), { maxLength: 20 }).map((entries) => new Map(entries)),
      set: fc.array(text, { maxLength: 20 }).map((list) => new Set(list)),
      long: fc.array(fc.constantFrom('x'.repeat(300), 'ü'.repeat(300), '語'.repeat(30_000)), { maxLength: 3 }),
      filler: fc.constant(Array.from({ length: 32 }, (_, i) => `f${i}`)),
    }, { noNullPrototype: true })
    fc.assert(
      fc.property(value, (v) => {
        const options = { compress: 'never' } as const
        const bytes = portable.encode(v, options)
        // Compared as one Buffer: expect's element-wise equality took seconds on 100 kB arrays.
        expect(Buffer.from(node.encode(v, options)).equals(bytes)).toBe(true)
        expect(sameValue(node.decode(bytes), v)).toBeUndefined()
        expect(sameValue(portable.decode(bytes), v)).toBeUndefined()
      }),
      { numRuns: 150 },
    )
  })

  it('read each other’s dictionary envelopes, sync and async', async () => {
    const tokens = Array.from({ length: 200 }, (_, i) => ({ user: `user-${i}`, scopes: ['read', 'write'], at: 1767225600000 + i }))
    const dictionary = trainDictionaryWith(nodePlatform, tokens, { size: 1024 })
    expect(trainDictionaryWith(portablePlatform, tokens, { size: 1024 })).toStrictEqual(dictionary)
    const options = { dictionaries: [dictionary] }
    for (const [writer, reader] of [
      [node, portable],
      [portable, node],
    ] as const) {
      for (const value of [tokens[7], tokens]) {
        const bytes = writer.encode(value, options)
        expect(reader.decode(bytes, options)).toStrictEqual(value)
        expect(await reader.decodeAsync(bytes, options)).toStrictEqual(value)
      }
    }
  })

  it('read each other’s bytes with dictionaries of any size from 1 byte, at every level', () => {
    const words = fc.array(fc.stringMatching(/^[a-z:/_.-]{1,12}$/), { minLength: 1, maxLength: 20 })
    fc.assert(
      fc.property(words, fc.integer({ min: 1, max: 700 }), fc.constantFrom(1, 6, 9), fc.nat(80), (list, size, level, rows) => {
        const dictionary = new TextEncoder().encode(list.join(',').repeat(Math.ceil(size / 2)).slice(0, size))
        const value = Array.from({ length: rows }, (_, i) => ({ a: list[i % list.length], b: `${list[(i * 7) % list.length]}/${i}` }))
        const options = { dictionaries: [dictionary], compress: 'always', level } as const
        for (const [writer, reader] of [
          [node, portable],
          [portable, node],
          [portable, portable],
        ] as const) {
          expect(reader.decode(writer.encode(value, options), options)).toStrictEqual(value)
        }
      }),
      { numRuns: 400 },
    )
  })

  it('both refuse bytes after the deflate stream, CORRUPT, even under a CRC that covers them: one-shot, sliced and streamed inflates, sync and async', async () => {
    // Text that deflates to ~100 B, to more than the portable one-shot limit (16 KiB), and to a
    // payload the portable async path inflates through DecompressionStream (from 256 KiB).
    let seed = 7
    const noise = (n: number) => Array.from({ length: n }, () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16).toString(36)).join(' ')
    for (const value of ['the same sentence again and again; '.repeat(300), noise(12_000), noise(70_000)]) {
      const bytes = node.encode(value, { compress: 'always' })
      expect(bytes[2]).toBe(1) // deflate-raw, no dictionary: the stream starts at byte 12
      const stored = bytes.subarray(12)
      for (const junk of [[0], [1, 2, 3]]) {
        const crafted = sealDeflatedRaw(new Uint8Array([...stored, ...junk]), new Uint8Array(0), { announced: new DataView(bytes.buffer, bytes.byteOffset).getUint32(4) })
        for (const [name, build] of [
          ['node', node],
          ['portable', portable],
        ] as const) {
          expect((caught(() => build.decode(crafted)) as StowageError).code, `${name}, ${stored.length} B + ${junk.length}`).toBe(StowageErrorCode.CORRUPT)
          await expect(build.decodeAsync(crafted), `${name} async, ${stored.length} B + ${junk.length}`).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
        }
      }
      // The stream as written reads back in both.
      expect(portable.decode(bytes)).toBe(value)
      expect(await portable.decodeAsync(bytes)).toBe(value)
    }
  })

  it('both refuse a stored deflate block whose NLEN is not the complement of its LEN, CORRUPT, under a CRC that covers it (zlib checks it, fflate does not)', async () => {
    const payload = new Uint8Array([0xa3, 0x61, 0x62, 0x63]) // the str "abc"
    for (const [nlen, readable] of [
      [~payload.length & 0xffff, true],
      [(~payload.length & 0xffff) ^ 0x0100, false],
      [payload.length, false],
    ] as const) {
      const stream = new Uint8Array([0x01, payload.length, 0, nlen & 0xff, nlen >> 8, ...payload]) // final stored block
      const crafted = sealDeflatedRaw(stream, payload)
      for (const [name, build] of [
        ['node', node],
        ['portable', portable],
      ] as const) {
        if (readable) {
          expect(build.decode(crafted), name).toBe('abc')
          continue
        }
        expect((caught(() => build.decode(crafted)) as StowageError).code, `${name}, NLEN ${nlen}`).toBe(StowageErrorCode.CORRUPT)
        await expect(build.decodeAsync(crafted), `${name} async, NLEN ${nlen}`).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
      }
    }
  })

  it('property: both refuse the same damaged deflate streams under a valid CRC, or read them to the same value', async () => {
    // The portable build inflates with fflate, which checks less than zlib: what it lets through,
    // deflate-end.ts must refuse (a differential fuzz found stored blocks with a wrong NLEN). The
    // codes may differ (FORMAT.md: CORRUPT or TRUNCATED, by which damage an inflater meets first).
    const text = fc.array(fc.constantFrom('id', 'login', 'https://x/', 'é', '😀', ' ', '0', 'z'), { minLength: 1, maxLength: 400 }).map((parts) => parts.join(''))
    const edit = fc.tuple(fc.constantFrom('set', 'insert', 'delete', 'flip'), fc.nat(), fc.integer({ min: 0, max: 255 }))
    await fc.assert(
      fc.asyncProperty(text, fc.array(edit, { minLength: 1, maxLength: 3 }), async (value, edits) => {
        const bytes = node.encode(value, { compress: 'always' })
        const stream = Array.from(bytes.subarray(12)) // deflate-raw, no dictionary: the stream starts at byte 12
        for (const [op, at0, byte] of edits) {
          const at = at0 % Math.max(1, stream.length)
          if (op === 'set') stream[at] = byte
          else if (op === 'insert') stream.splice(at, 0, byte)
          else if (op === 'delete') stream.splice(at, 1)
          else stream[at] = (stream[at] ?? 0) ^ (1 << (byte & 7))
        }
        const damaged = sealDeflatedRaw(Uint8Array.from(stream), new Uint8Array(0), { announced: new DataView(bytes.buffer, bytes.byteOffset).getUint32(4) })
        const outcomes = [() => node.decode(damaged), () => portable.decode(damaged), () => node.decodeAsync(damaged), () => portable.decodeAsync(damaged)]
        const results = await Promise.all(outcomes.map(async (run) => { try { return { value: await run() } } catch (e) { expect(StowageError.isInstance(e)).toBe(true); return undefined } }))
        expect(results.map((r) => r === undefined)).toStrictEqual(Array(4).fill(results[0] === undefined))
        for (const r of results) if (r !== undefined) expect(r.value).toStrictEqual(results[0]!.value)
      }),
      { numRuns: 500 },
    )
  })

  it('a Node Buffer is stored as bytes and comes back as a Uint8Array', () => {
    const back = node.decode(node.encode({ b: Buffer.from('abc') })) as { b: Uint8Array }
    expect(back.b.constructor).toBe(Uint8Array)
    expect([...back.b]).toStrictEqual([97, 98, 99])
  })

  it('the Node build reads the pinned fflate-compressed golden vector', () => {
    expect(node.decode(fromHex(goldenCompressedV1))).toBe('abc'.repeat(100))
  })
})

describe('FORMAT.md reference decoder (@msgpack/msgpack + the lines on the page)', () => {
  const reference = referenceDecoder()
  const samples: unknown[] = [
    ...values.slice(0, 2),
    { users: { ann: { age: 1, tags: ['x'] }, bob: { age: 2, tags: [] } }, at: new Date(1700000000123), missing: undefined },
    new Map<unknown, unknown>([['k', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], [2n ** 70n, new Set([-(2n ** 64n), 0n])]]),
    // Shapes: nested objects that repeat, rows with optional fields, a key with lone surrogates.
    {
      owner: { login: 'ann', id: 1, url: 'https://x/ann' },
      repo: { name: 'r', owner: { login: 'bob', id: 2, url: 'https://x/bob' }, topics: ['a\ud800'] },
      sender: { login: 'ann', id: 1, url: 'https://x/ann' },
      rows: [{ a: 1, b: 'x' }, { a: 2 }, { a: 3, b: 'y', c: true }, { a: 4 }, { a: 5, b: 'z' }],
      wide: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`field_${i}`, i])),
      odd: { 'a\udc00': 1, plain: 2, more: 3 },
    },
    // __proto__ keys: always in a SHAPE, never a map key @msgpack/msgpack would refuse.
    JSON.parse('{"n": 1, "o": {"__proto__": {"x": 1}, "y": 2}}'),
    // Formats 3 and 4: string tables, with strings in shapes, a Map, a Set, RECORDS columns and non-ASCII.
    ...Object.values(goldenValuesV3).map((make) => make()),
    ...Object.values(goldenValuesV4).map((make) => make()),
    { events: Array.from({ length: 50 }, (_, i) => ({ id: i, title: `événement ${i} 😀`, tags: new Set([`t${i % 3}`]) })), note: 'x'.repeat(70_000) },
  ]

  it('decodes what both platforms write to the same value, with the CRC and metadata checked', () => {
    for (const api of [node, portable]) {
      for (const [i, value] of samples.entries()) {
        const meta = { schemaVersion: 7, freshUntil: 1767225600123 + i, tags: i % 2 === 0 ? undefined : new Map([['user:1', i], ['🏷', 0xffffffff - i]]) }
        const bytes = api.createCodec().encode(value, meta)
        const decoded = reference(bytes)
        expect(sameValue(decoded.value, api.decode(bytes)), `sample ${i}`).toBeUndefined()
        expect(sameValue(decoded.value, value), `sample ${i}`).toBeUndefined()
        expect(decoded).toMatchObject(meta)
      }
    }
  })

  it("property: decodes any value the page's extensions cover as Stowage does, keys like constructor and __proto__ included, and any header fields", () => {
    // Keys an object holds as its own that plain objects also inherit: a reader that asks
    // `x.constructor` to tell a plain object reads the wrong thing.
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '10', 'login'))
    const leaf = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.integer(),
      fc.double(),
      fc.bigInt(),
      fc.boolean(),
      fc.constantFrom(null, undefined),
      fc.date({ noInvalidDate: true }),
      fc.uint8Array({ maxLength: 4 }),
    )
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object'), tie('map'), tie('set'), tie('rows')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(key, tie('value'), { maxKeys: 5, noNullPrototype: true }),
      map: fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 3 }).map((entries) => new Map(entries)),
      set: fc.array(tie('value'), { maxLength: 3 }).map((items) => new Set(items)),
      // Objects of one shape, repeated: SHAPE, SHAPE_REF, RECORDS, DELTA.
      rows: fc.tuple(fc.uniqueArray(key, { minLength: 1, maxLength: 3 }), fc.integer({ min: 2, max: 12 }), tie('value')).map(([keys, n, inner]) =>
        Array.from({ length: n }, (_, i) => Object.fromEntries(keys.map((k, j) => [k, j === 0 ? i : inner]))),
      ),
    }))
    // The header's fields too: any schema version, fresh-until time and tags (UTF-8 of 1–255 bytes).
    const tag = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((t) => new TextEncoder().encode(t).length <= 255)
    const meta = fc.record(
      {
        schemaVersion: fc.nat({ max: 0xffffffff }),
        freshUntil: fc.nat({ max: 8.64e15 }),
        tags: fc.uniqueArray(fc.tuple(tag, fc.nat({ max: 0xffffffff })), { minLength: 1, maxLength: 4, selector: ([t]) => t }).map((entries) => new Map(entries)),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(value, meta, fc.boolean(), (v, m, compressed) => {
        for (const api of [node, portable]) {
          const bytes = api.createCodec({ compress: compressed ? 'always' : 'never' }).encode(v, m)
          // A plain Uint8Array: given a Buffer, @msgpack/msgpack hands bin values out as Buffers.
          const decoded = reference(Uint8Array.from(bytes))
          expect(sameValue(decoded.value, api.decode(bytes))).toBeUndefined()
          expect({ schemaVersion: decoded.schemaVersion, freshUntil: decoded.freshUntil, tags: decoded.tags }).toStrictEqual({ schemaVersion: m.schemaVersion, freshUntil: m.freshUntil, tags: m.tags })
        }
      }),
      { numRuns: 400 },
    )
  })

  it('refuses a damaged envelope, as the page says', () => {
    const bytes = node.encode(samples[0])
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1
    expect(() => reference(bytes)).toThrow('damaged')
  })

  it('reads the pinned format version 3 and 4 vectors', () => {
    for (const [name, make] of Object.entries(goldenValuesV3)) expect(sameValue(reference(fromHex(goldenVectorsV3[name] as string)).value, make()), name).toBeUndefined()
    for (const [name, make] of Object.entries(goldenValuesV4)) expect(sameValue(reference(fromHex(goldenVectorsV4[name] as string)).value, make()), name).toBeUndefined()
  })

  it('reads dictionary envelopes (ids 2 and 3), and refuses a missing dictionary and, for id 3, a wrong one with the same id', () => {
    const text = new TextEncoder().encode(goldenDictionaryText)
    const dictionaries = new Map([[crc32(text), text]])
    const token = { userId: 'u_78d598', token: '00000000000000000000026a08b35b68', scopes: ['read:posts', 'write:comments'], expiresAt: 1767225601000 }
    expect(reference(fromHex(goldenDictionaryEnvelope), dictionaries).value).toStrictEqual(token)
    expect(reference(fromHex(goldenCheckedDictionaryEnvelope), dictionaries).value).toStrictEqual(token)
    expect(() => reference(fromHex(goldenCheckedDictionaryEnvelope))).toThrow('no dictionary')
    const other = new TextEncoder().encode(goldenDictionaryText.replaceAll('write:comments', 'write:commxnts'))
    expect(() => reference(fromHex(goldenCheckedDictionaryEnvelope), new Map([[crc32(text), other]]))).toThrow('wrong dictionary')
  })

  it('refuses bytes after the deflate stream, checks the CRC before inflating, and refuses v1 __proto__ map keys as the page says', () => {
    const deflated = node.createCodec({ compress: 'always' }).encode('abc'.repeat(100))
    expect(reference(deflated).value).toBe('abc'.repeat(100))
    // One byte appended after the stream, with a CRC made valid for it: refused all the same. (No
    // metadata, compression 1: 4 fixed bytes and the payload length, then the CRC at 8.)
    expect([...deflated.subarray(0, 4)]).toStrictEqual([0xc1, 2, 1, 0])
    const appended = new Uint8Array(deflated.length + 1)
    appended.set(deflated)
    new DataView(appended.buffer).setUint32(8, crc32(appended.subarray(12), crc32(appended.subarray(0, 8))))
    expect(() => reference(appended)).toThrow('wrong length')
    // A damaged stream never reaches the inflater: the CRC fails first.
    const damaged = deflated.slice()
    damaged[damaged.length - 3] = 0xff
    expect(() => reference(damaged)).toThrow('damaged')
    expect(() => reference(fromHex(goldenVectorsV1['hostile keys'] as string))).toThrow('__proto__')
  })

  it('reads format version 1 envelopes too (CRC over the inflated payload)', () => {
    expect(reference(fromHex(goldenCompressedV1)).value).toBe('abc'.repeat(100))
  })
})
