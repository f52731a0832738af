// The JSON answer is the one a client can make expensive: these pin that it is rendered at most
// once per envelope, refused past its limit, and never rendered for HEAD.
import { createCache, createCodec, StowageError, StowageErrorCode, type Codec } from '@stowage/core'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_MAX_JSON_BYTES, envelopeResponse, JSON_RENDERS_MAX_BYTES, MAX_JSON_BYTES_LIMIT, STOWAGE_MEDIA_TYPE } from '../src/index.js'
import { nodeHttp, type Running } from './servers.js'

// A class stored through an extension, so every decode of a value holding one is counted.
class Point {
  constructor(readonly x: number) {}
}

function countingCodec(): { codec: Codec; decodes: () => number } {
  let decodes = 0
  const codec = createCodec({
    extensions: [
      {
        type: 1,
        class: Point,
        encode: (p: Point) => p.x,
        decode: (x: number) => {
          decodes++
          return new Point(x)
        },
      },
    ],
  })
  return { codec, decodes: () => decodes }
}

const request = (method: string, accept = 'application/json') => ({ method, headers: new Headers({ Accept: accept }) })
// The README's rows: a 483-byte envelope whose JSON is 6.7 MB.
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))

describe('the JSON representation', () => {
  it('is rendered once per envelope: later requests, with or without If-None-Match, do not decode again', async () => {
    const { codec, decodes } = countingCodec()
    const bytes = codec.encode({ at: new Point(1), rows: rows(10) })
    const first = await envelopeResponse(request('GET'), bytes, { codec })
    expect(first.status).toBe(200)
    const text = await first.text()
    expect(decodes()).toBe(1)
    for (let i = 0; i < 5; i++) {
      const again = await envelopeResponse(request('GET'), bytes, { codec })
      expect(await again.text()).toBe(text)
    }
    expect(decodes()).toBe(1)
    // Another envelope is another render.
    await (await envelopeResponse(request('GET'), codec.encode({ at: new Point(2) }), { codec })).text()
    expect(decodes()).toBe(2)
  })

  it('answers 406 past maxJsonBytes, once decided without decoding again, and still serves the envelope', async () => {
    const { codec, decodes } = countingCodec()
    const bytes = codec.encode({ at: new Point(1), rows: rows(10) })
    const json = await (await envelopeResponse(request('GET'), bytes, { codec })).text()
    const small = { codec, maxJsonBytes: json.length - 1 }
    const other = codec.encode({ at: new Point(1), rows: rows(11) })
    for (let i = 0; i < 3; i++) {
      const refused = await envelopeResponse(request('GET'), other, small)
      expect([refused.status, refused.headers.get('vary'), refused.body]).toStrictEqual([406, 'Accept', null])
    }
    expect(decodes()).toBe(2)
    // An exact fit is served; the envelope is never refused.
    expect((await envelopeResponse(request('GET'), bytes, { codec, maxJsonBytes: json.length })).status).toBe(200)
    const envelope = await envelopeResponse(request('GET', STOWAGE_MEDIA_TYPE), other, small)
    expect([envelope.status, envelope.headers.get('content-type')]).toStrictEqual([200, STOWAGE_MEDIA_TYPE])
  })

  it('refuses a small envelope whose JSON would be megabytes without rendering it every time (the README rows, 100,000 of them)', async () => {
    const codec = createCodec()
    const bytes = codec.encode(rows(100_000))
    expect(bytes.length).toBeLessThan(1024)
    for (const method of ['GET', 'HEAD', 'GET']) {
      const response = await envelopeResponse(request(method), bytes, { codec })
      expect([method, response.status, response.headers.get('content-length')]).toStrictEqual([method, 406, null])
    }
  })

  it('is never rendered for HEAD: Content-Length only once a GET has rendered it', async () => {
    const { codec, decodes } = countingCodec()
    const bytes = codec.encode({ at: new Point(1) })
    const head = await envelopeResponse(request('HEAD'), bytes, { codec })
    expect([head.status, head.headers.get('content-type'), head.headers.get('content-length'), head.body]).toStrictEqual([200, 'application/json; charset=utf-8', null, null])
    expect(decodes()).toBe(0)
    const get = await envelopeResponse(request('GET'), bytes, { codec })
    const length = (await get.arrayBuffer()).byteLength
    const after = await envelopeResponse(request('HEAD'), bytes, { codec })
    expect([after.headers.get('content-length'), after.headers.get('etag')]).toStrictEqual([String(length), get.headers.get('etag')])
    expect(decodes()).toBe(1)
  })

  it('keeps renders in a bounded book: the least recently used one is rendered again', async () => {
    const { codec, decodes } = countingCodec()
    // Renders of about 250 KB each; the book holds 8 MiB of them.
    const value = (n: number) => ({ at: new Point(n), text: 'x'.repeat(250_000) })
    const count = Math.ceil(JSON_RENDERS_MAX_BYTES / 250_000) + 2
    for (let n = 0; n < count; n++) await (await envelopeResponse(request('GET'), codec.encode(value(n)), { codec })).arrayBuffer()
    expect(decodes()).toBe(count)
    await (await envelopeResponse(request('GET'), codec.encode(value(count - 1)), { codec })).arrayBuffer()
    expect(decodes()).toBe(count)
    await (await envelopeResponse(request('GET'), codec.encode(value(0)), { codec })).arrayBuffer()
    expect(decodes()).toBe(count + 1)
  })

  it('takes maxJsonBytes from 1 to MAX_JSON_BYTES_LIMIT, defaulting to DEFAULT_MAX_JSON_BYTES', async () => {
    const bytes = createCodec().encode('x'.repeat(DEFAULT_MAX_JSON_BYTES - 8))
    expect((await envelopeResponse(request('GET'), bytes)).status).toBe(200)
    expect((await envelopeResponse(request('GET'), createCodec().encode([['x'.repeat(DEFAULT_MAX_JSON_BYTES / 2)], 'x'.repeat(DEFAULT_MAX_JSON_BYTES / 2)]))).status).toBe(406)
    for (const maxJsonBytes of [0, 1.5, MAX_JSON_BYTES_LIMIT + 1, Number.NaN]) {
      const error = await envelopeResponse(request('GET'), bytes, { maxJsonBytes }).catch((e: unknown) => e)
      expect(StowageError.isInstance(error) && error.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })
})

describe('the JSON representation over node:http', () => {
  let running: Running | undefined
  afterEach(async () => {
    await running?.close()
    running = undefined
  })

  it('answers 406 to Accept: application/json for an entry past the limit, and the envelope to everyone else', async () => {
    const cache = createCache({ namespace: 'json-limit' })
    running = await nodeHttp(cache, () => rows(100_000))
    const refused = await fetch(`${running.url}/entries/rows`, { headers: { Accept: 'application/json' } })
    expect(refused.status).toBe(406)
    await refused.arrayBuffer()
    const head = await fetch(`${running.url}/entries/rows`, { method: 'HEAD', headers: { Accept: 'application/json' } })
    expect(head.status).toBe(406)
    const envelope = await fetch(`${running.url}/entries/rows`)
    expect([envelope.status, envelope.headers.get('content-type')]).toStrictEqual([200, STOWAGE_MEDIA_TYPE])
    expect(cache.codec.decode(new Uint8Array(await envelope.arrayBuffer()))).toHaveLength(100_000)
  })
})
