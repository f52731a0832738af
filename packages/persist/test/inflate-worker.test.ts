// The restore's inflate worker: in a browser (the persist:browser project, Chromium) it inflates
// with the native DecompressionStream in a Worker; in Node, where there are no Web Workers, there is
// none and the codec inflates on the calling thread (the other restore tests run there).
import { createCodec, StowageError, StowageErrorCode } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { startInflateWorker } from '../src/shared/inflate-worker.js'

const hasWorkers = typeof Worker !== 'undefined'
const value = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, login: `user-${i}`, url: `https://api.github.com/users/user-${i}` })) }

async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer())
}

describe('inflate worker', () => {
  it.runIf(!hasWorkers)('is not started where there are no Web Workers', () => {
    expect(startInflateWorker()).toBeUndefined()
  })

  it.runIf(hasWorkers)('inflates envelopes for decodeAsync, many at once, each to its own bytes', async () => {
    const worker = startInflateWorker()!
    try {
      const codec = createCodec({ compress: 'always' })
      const envelopes = [value, { other: 'value' }, value.rows.slice(0, 10)].map((v) => codec.encode(v))
      const decoded = await Promise.all(envelopes.map((bytes) => codec.decodeAsync(bytes, { inflate: worker.inflate })))
      expect(decoded).toStrictEqual([value, { other: 'value' }, value.rows.slice(0, 10)])
      // The caller's bytes stay its own (a copy went to the worker).
      expect(codec.decode(envelopes[0]!)).toStrictEqual(value)
    } finally {
      worker.close()
    }
  })

  it.runIf(hasWorkers)('refuses bad deflate data, and a stream longer than announced, as CORRUPT', async () => {
    const worker = startInflateWorker()!
    try {
      const deflated = await deflateRaw(new TextEncoder().encode('x'.repeat(1000)))
      expect(new TextDecoder().decode(await worker.inflate(deflated, 1000))).toBe('x'.repeat(1000))
      await expect(worker.inflate(deflated, 10)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
      await expect(worker.inflate(new Uint8Array([0xff, 0xfe, 0xfd, 0xfc]), 100)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    } finally {
      worker.close()
    }
  })

  it.runIf(hasWorkers)('rejects with a plain Error once closed, so that the restore inflates on the main thread instead', async () => {
    const worker = startInflateWorker()!
    worker.close()
    const error = await worker.inflate(new Uint8Array([1, 2, 3]), 3).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(StowageError.isInstance(error)).toBe(false)
  })
})
