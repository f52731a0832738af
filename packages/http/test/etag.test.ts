// The ETag serve.ts sends cannot be forged: two envelopes with the same CRC-32 and length (which
// anyone who writes four chosen bytes into a shared value can make) get different ETags, and a
// client holding the old version is answered with the new one, not told 304.
import { createCache, createCodec, createMemoryStore, inspect, type Cache } from '@stowage/core'
import { afterEach, describe, expect, it } from 'vitest'
import { envelopeEtag, fetchCachedWithInfo } from '../src/index.js'
import { sha256 as nodeSha256 } from '../src/platform/sha256-node.js'
import { sha256 as webSha256 } from '../src/platform/sha256-web.js'
import { nodeHttp, type Running } from './servers.js'

const codec = createCodec({ compress: 'never' })
const encode = (note: string, pad: Uint8Array) => codec.encode({ note, pad })

// The four pad bytes that give `note`'s envelope the CRC-32 `target`. The CRC of the envelope is
// affine in the pad's 32 bits over GF(2): found from 33 encodes by Gaussian elimination.
function forgePad(note: string, target: number): Uint8Array | undefined {
  const padOf = (bits: number) => new Uint8Array([bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff, bits >>> 24])
  const crcOf = (bits: number) => inspect(encode(note, padOf(bits))).crc
  const base = crcOf(0)
  const pivots: Array<{ value: number; bits: number } | undefined> = []
  for (let i = 0; i < 32; i++) {
    let value = (crcOf((1 << i) >>> 0) ^ base) >>> 0
    let bits = (1 << i) >>> 0
    for (let bit = 31; bit >= 0 && value !== 0; bit--) {
      if (((value >>> bit) & 1) === 0) continue
      const pivot = pivots[bit]
      if (pivot === undefined) {
        pivots[bit] = { value, bits }
        break
      }
      value = (value ^ pivot.value) >>> 0
      bits = (bits ^ pivot.bits) >>> 0
    }
  }
  let want = (target ^ base) >>> 0
  let bits = 0
  for (let bit = 31; bit >= 0; bit--) {
    if (((want >>> bit) & 1) === 0) continue
    const pivot = pivots[bit]
    if (pivot === undefined) return undefined
    want = (want ^ pivot.value) >>> 0
    bits = (bits ^ pivot.bits) >>> 0
  }
  return padOf(bits)
}

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

describe('ETag', () => {
  const old = encode('price: 10', new Uint8Array(4))
  const pad = forgePad('price: 99', inspect(old).crc)!
  const forged = encode('price: 99', pad)

  it('the forgery is real: same CRC-32 and length, another value', () => {
    expect(inspect(forged).crc).toBe(inspect(old).crc)
    expect(forged.length).toBe(old.length)
    expect(codec.decode(forged)).not.toStrictEqual(codec.decode(old))
  })

  it('is a SHA-256 of the bytes: the two get different ETags', async () => {
    expect(await envelopeEtag(old)).toMatch(/^"s256-[\w-]{22}"$/)
    expect(await envelopeEtag(forged)).not.toBe(await envelopeEtag(old))
    expect(await envelopeEtag(new Uint8Array(old))).toBe(await envelopeEtag(old))
  })

  it('is the same from node:crypto (Node, Bun) and WebCrypto (Deno, workers, browsers), below and above 1 MiB', async () => {
    const { createHash } = await import('node:crypto')
    for (const size of [0, 1, 8192, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 0xff)
      const expected = createHash('sha256').update(bytes).digest('hex')
      expect(Buffer.from(await nodeSha256(bytes)).toString('hex'), `node ${size}`).toBe(expected)
      expect(Buffer.from(await webSha256(bytes)).toString('hex'), `web ${size}`).toBe(expected)
    }
  })

  it('a client holding the old version gets the forged one, not a 304', async () => {
    const server: Cache = createCache({ store: createMemoryStore(), namespace: 'origin' })
    running = await nodeHttp(server, () => undefined)
    const url = `${running.url}/entries/price`
    await server.acceptBytes('price', old, { inflate: false })
    const client = createCache({ store: createMemoryStore(), namespace: 'client' })
    expect(await fetchCachedWithInfo(url, { cache: client, validatorHints: false })).toMatchObject({ value: { note: 'price: 10' }, source: 'network' })
    await server.acceptBytes('price', forged, { inflate: false })
    expect(await fetchCachedWithInfo(url, { cache: client, validatorHints: false })).toMatchObject({ value: { note: 'price: 99', pad }, source: 'network' })
  })
})
