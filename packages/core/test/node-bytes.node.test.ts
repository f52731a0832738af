// The Node build hands out Buffers (zero-copy views of the bytes it made), so the bytes work where
// Node APIs and client libraries want a Buffer; the portable build hands out plain Uint8Arrays.
// Decoding takes both, and names the cause when it is handed text. Real Redis clients: packages/redis/test/drop-in.test.ts.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bindApi } from '../src/codec/api.js'
import { platform as nodePlatform } from '../src/codec/platform/node.js'
import { platform as portablePlatform } from '../src/codec/platform/portable.js'
import { createCache, createCodec, createMemoryStore, decode, decodeAsync, encode, encodeAsync, StowageErrorCode, trainDictionary, withoutTags, withValidator } from '../src/index.js'

const rows = Array.from({ length: 1000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
const values: unknown[] = [{ a: 1 }, 'x'.repeat(5000), rows, new Uint8Array([1, 2, 3])]

function errorOf(fn: () => unknown): { code?: string; message: string } {
  try {
    fn()
  } catch (e) {
    return e as { code?: string; message: string }
  }
  throw new Error('did not throw')
}

describe('the Node build hands out Buffers', () => {
  it('from encode, encodeAsync and every encode method of a codec, small and large, deflated or not', async () => {
    const codec = createCodec()
    for (const value of values) {
      const made = [
        encode(value),
        await encodeAsync(value),
        encode(value, { compress: 'never' }),
        codec.encode(value),
        await codec.encodeAsync(value),
        codec.encodeEnvelope(value).bytes,
        (await codec.encodeEnvelopeAsync(value)).bytes,
      ]
      for (const bytes of made) {
        expect(Buffer.isBuffer(bytes)).toBe(true)
        expect(decode(bytes)).toStrictEqual(value)
      }
    }
  })

  it('over the memory the codec wrote: the same bytes as the portable build, which hands out plain Uint8Arrays', () => {
    const node = bindApi(nodePlatform)
    const portable = bindApi(portablePlatform)
    for (const value of values) {
      const fromNode = node.encode(value, { compress: 'never' })
      const fromPortable = portable.encode(value, { compress: 'never' })
      expect(fromPortable.constructor).toBe(Uint8Array)
      expect(new Uint8Array(fromNode)).toStrictEqual(fromPortable)
    }
    // Zero-copy: a Buffer view of the array the envelope was sealed into (the pool's slab when small).
    const small = node.encode({ a: 1 })
    expect(small.buffer.byteLength).toBeGreaterThan(small.byteLength)
  })

  it('from inflateEnvelope, trainDictionary, withoutTags and withValidator when they make new bytes; bytes passed in come back as they are', async () => {
    const codec = createCodec({ compress: 'always' })
    const deflated = codec.encode(rows)
    expect(Buffer.isBuffer(codec.inflateEnvelope(deflated))).toBe(true)
    expect(Buffer.isBuffer(await codec.inflateEnvelopeAsync(deflated))).toBe(true)
    const plain = new Uint8Array(createCodec({ compress: 'never' }).encode(rows))
    expect(codec.inflateEnvelope(plain)).toBe(plain)
    expect(Buffer.isBuffer(trainDictionary(rows.slice(0, 50), { size: 256 }))).toBe(true)
    const tagged = new Uint8Array(codec.encode(rows, { tags: new Map([['t', 1]]) }))
    expect(Buffer.isBuffer(withoutTags(tagged))).toBe(true)
    expect(withoutTags(plain)).toBe(plain)
    expect(Buffer.isBuffer(withValidator(plain, { kind: 'etag', value: '"v1"' }))).toBe(true)
    expect(withValidator(plain, undefined)).toBe(plain)
  })

  it('from Cache.getBytes, whatever the store returns', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'bytes' })
    await cache.set('k', rows)
    const stored = await store.get('bytes:k')
    expect(stored?.constructor).toBe(Uint8Array)
    const bytes = await cache.getBytes('k')
    expect(Buffer.isBuffer(bytes)).toBe(true)
    expect(new Uint8Array(bytes!)).toStrictEqual(stored)
  })

  it('that fs writes and reads back as the same envelope', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stowage-bytes-'))
    try {
      const file = join(dir, 'rows.stowage')
      await writeFile(file, encode(rows))
      expect(decode(await readFile(file))).toStrictEqual(rows)
      await writeFile(file, await encodeAsync(rows, { compress: 'never' }))
      expect(await decodeAsync(await readFile(file))).toStrictEqual(rows)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('that the memory store copies: a Buffer given to set is not kept, so changing it later changes nothing stored', async () => {
    const store = createMemoryStore()
    const bytes = encode({ a: 'value' })
    await store.set('k', bytes)
    const copy = new Uint8Array(bytes)
    bytes.fill(0)
    expect(await store.get('k')).toStrictEqual(copy)
    await store.setField('b', 'f', bytes)
    const field = new Uint8Array(bytes)
    bytes.fill(7)
    expect(await store.getField('b', 'f')).toStrictEqual(field)
  })
})

describe('decode takes a Buffer', () => {
  it('anywhere in a larger one, and its binary values are copies, not views of the input', () => {
    const value = { blob: new Uint8Array([9, 8, 7]), buffer: new Uint8Array([1, 2]).buffer }
    const envelope = encode(value)
    const pool = Buffer.alloc(envelope.length + 100, 0xaa)
    pool.set(envelope, 50)
    const input = pool.subarray(50, 50 + envelope.length)
    const decoded = decode<typeof value>(input)
    expect(decoded).toStrictEqual(value)
    expect(decoded.blob.buffer).not.toBe(pool.buffer)
    expect(decoded.buffer.byteLength).toBe(2)
    pool.fill(0)
    expect(decoded.blob).toStrictEqual(new Uint8Array([9, 8, 7]))
  })
})

describe('bytes that became text are named as such, not a bare BAD_MAGIC', () => {
  const envelope = encode(rows)
  // What ioredis stores for a plain Uint8Array: String(bytes).
  const asList = String(new Uint8Array(envelope))
  // What reading the key as a string gives: the bytes decoded as UTF-8.
  const asUtf8 = Buffer.from(envelope).toString('utf8')

  it('a string of the numbers ("193,2,0,…") is INVALID_ARGUMENT that says the bytes were stored as text', async () => {
    const e = errorOf(() => decode(asList as never))
    expect(e.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(e.message).toMatch(/got a string: the text "193,\d+,\d+,.*stored as text, as ioredis stores a plain Uint8Array/)
    expect(e.message).toMatch(/getBuffer/)
    await expect(decodeAsync(asList as never)).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT, message: e.message })
  })

  it('a string read from an envelope as UTF-8 says the bytes were read as text and lost', () => {
    const e = errorOf(() => createCodec().decode(asUtf8 as never))
    expect(e.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(e.message).toMatch(/got a string: UTF-8 text: bytes read as a string, which loses them/)
  })

  it('any other string, and other non-bytes, are INVALID_ARGUMENT naming what came', () => {
    expect(errorOf(() => decode('{"json":1}' as never))).toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT, message: expect.stringMatching(/got a string: bytes read as text; .*getBuffer/) })
    expect(errorOf(() => decode(null as never)).message).toMatch(/got null$/)
    expect(errorOf(() => decode(new ArrayBuffer(4) as never)).message).toMatch(/\(a Uint8Array\), got ArrayBuffer$/)
    expect(errorOf(() => decode([193, 2] as never)).message).toMatch(/got Array$/)
  })

  it('the numbers as bytes (the stored text read back with getBuffer) are BAD_MAGIC that says so', () => {
    for (const bytes of [Buffer.from(asList), new TextEncoder().encode(asList)]) {
      const e = errorOf(() => decode(bytes))
      expect(e.code).toBe(StowageErrorCode.BAD_MAGIC)
      expect(e.message).toMatch(/not a Stowage envelope \(first byte is not 0xC1\): they are the text "193,.*stored as text, as ioredis stores a plain Uint8Array; .*getBuffer/)
    }
    expect(errorOf(() => decode(Buffer.from(asUtf8))).message).toMatch(/they are UTF-8 text: bytes read as a string/)
  })

  it('bytes that are neither keep the plain BAD_MAGIC message', () => {
    expect(errorOf(() => decode(new TextEncoder().encode('{"json":1}')))).toStrictEqual(
      expect.objectContaining({ code: StowageErrorCode.BAD_MAGIC, message: 'these bytes are not a Stowage envelope (first byte is not 0xC1)' }),
    )
  })
})
