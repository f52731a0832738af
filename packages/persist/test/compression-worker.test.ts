// The persister's compression worker: in a browser (the persist:browser project, Chromium) it
// deflates and inflates with the native streams in a Worker; in Node, where there are no Web
// Workers, there is none and the codec does it on the calling thread (the other persister tests
// run there).
import { createCodec, inspect, StowageError, StowageErrorCode } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { startCompressionWorker } from '../src/shared/compression-worker.js'

const hasWorkers = typeof Worker !== 'undefined'
const value = { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, login: `user-${i}`, url: `https://api.github.com/users/user-${i}` })) }

async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer())
}

describe('compression worker', () => {
  it.runIf(!hasWorkers)('is not started where there are no Web Workers', () => {
    expect(startCompressionWorker()).toBeUndefined()
  })

  it.runIf(hasWorkers)('inflates envelopes for decodeAsync, many at once, each to its own bytes', async () => {
    const worker = startCompressionWorker()!
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

  it.runIf(hasWorkers)('deflates for encodeAsync: the envelopes read back with any codec', async () => {
    const worker = startCompressionWorker()!
    try {
      const codec = createCodec({ compressThreshold: 1024 })
      const bytes = await codec.encodeAsync(value, undefined, { deflate: worker.deflate })
      expect(inspect(bytes).compression).toBe('deflate-raw')
      expect(bytes.length).toBeLessThan(inspect(bytes).payloadLength / 4)
      expect(createCodec().decode(bytes)).toStrictEqual(value)
      expect(await codec.decodeAsync(bytes, { inflate: worker.inflate })).toStrictEqual(value)
      // Incompressible bytes come back larger than they went in, and whole.
      const noise = new Uint8Array(200_000)
      for (let i = 0; i < noise.length; i += 65_536) crypto.getRandomValues(noise.subarray(i, i + 65_536))
      const deflated = await worker.deflate(noise)
      expect(deflated.length).toBeGreaterThan(noise.length)
      expect(await worker.inflate(deflated, noise.length)).toStrictEqual(noise)
    } finally {
      worker.close()
    }
  })

  it.runIf(hasWorkers)('refuses bad deflate data, and a stream longer than announced, as CORRUPT', async () => {
    const worker = startCompressionWorker()!
    try {
      const deflated = await deflateRaw(new TextEncoder().encode('x'.repeat(1000)))
      expect(new TextDecoder().decode(await worker.inflate(deflated, 1000))).toBe('x'.repeat(1000))
      await expect(worker.inflate(deflated, 10)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
      await expect(worker.inflate(new Uint8Array([0xff, 0xfe, 0xfd, 0xfc]), 100)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    } finally {
      worker.close()
    }
  })

  it.runIf(hasWorkers)('carries bytes in the buffers it gets back: large, small and many at once, after a refusal too, each answer its own', async () => {
    const worker = startCompressionWorker()!
    try {
      // Compared byte by byte in a loop: toStrictEqual walks 300,000 elements slowly.
      const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])
      const sized = (n: number, seed: number) => {
        const bytes = new Uint8Array(n)
        for (let i = 0; i < n; i++) bytes[i] = (i * 31 + seed) % 251
        return bytes
      }
      // One at a time: a large payload leaves a large buffer behind, then smaller ones travel in it.
      for (const [n, seed] of [[300_000, 1], [1_000, 2], [0, 3], [299_999, 4], [300_001, 5]] as const) {
        const payload = sized(n, seed)
        const kept = payload.slice()
        const deflated = await worker.deflate(payload)
        expect(same(payload, kept)).toBe(true) // the caller's bytes stay its own
        expect(same(await worker.inflate(deflated, n), kept)).toBe(true)
      }
      // More at once than buffers come back: every answer is its own payload's.
      const payloads = Array.from({ length: 12 }, (_, i) => sized(20_000 + i * 7_919, i))
      const deflated = await Promise.all(payloads.map((p) => worker.deflate(p)))
      const inflated = await Promise.all(deflated.map((d, i) => worker.inflate(d, payloads[i]!.length)))
      expect(inflated.map((bytes, i) => same(bytes, payloads[i]!))).toStrictEqual(payloads.map(() => true))
      // A refused stream hands its buffer back too, and the next answers are right.
      await expect(worker.inflate(new Uint8Array([0xff, 0xfe, 0xfd, 0xfc]), 100)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
      const last = sized(5_000, 9)
      expect(same(await worker.inflate(await worker.deflate(last), last.length), last)).toBe(true)
    } finally {
      worker.close()
    }
  })

  it.runIf(hasWorkers)('sends the asks of one task in one message, each answered as its own, a refused one among them too', async () => {
    const sent: number[] = []
    const post = Worker.prototype.postMessage as (this: Worker, message: unknown, transfer: Transferable[]) => void
    Worker.prototype.postMessage = function (this: Worker, message: { jobs: unknown[] }, transfer: Transferable[]) {
      sent.push(message.jobs.length)
      post.call(this, message, transfer)
    } as typeof Worker.prototype.postMessage
    const worker = startCompressionWorker()!
    try {
      const payloads = Array.from({ length: 5 }, (_, i) => new TextEncoder().encode(`payload ${i} `.repeat(500 + 100 * i)))
      const deflated = await Promise.all(payloads.map((p) => worker.deflate(p)))
      expect(sent).toStrictEqual([5])
      const answers = await Promise.allSettled([...deflated.map((d, i) => worker.inflate(d, payloads[i]!.length)), worker.inflate(new Uint8Array([0xff, 0xfe, 0xfd, 0xfc]), 100)])
      expect(sent).toStrictEqual([5, 6])
      expect(answers.slice(0, 5).map((a) => (a.status === 'fulfilled' ? new TextDecoder().decode(a.value) : a.reason))).toStrictEqual(payloads.map((p) => new TextDecoder().decode(p)))
      expect(answers[5]).toMatchObject({ status: 'rejected', reason: { code: StowageErrorCode.CORRUPT } })
      // Asks of separate tasks go separately.
      await worker.deflate(payloads[0]!)
      await worker.deflate(payloads[1]!)
      expect(sent).toStrictEqual([5, 6, 1, 1])
      // A message that cannot be sent fails the worker at once (not after its timeout): the caller does the work.
      Worker.prototype.postMessage = () => {
        throw new DOMException('refused', 'DataCloneError')
      }
      const refused = await worker.deflate(payloads[0]!).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(Error)
      expect(StowageError.isInstance(refused)).toBe(false)
      expect(String((refused as Error).message)).toMatch(/could not be sent its work/)
    } finally {
      Worker.prototype.postMessage = post as typeof Worker.prototype.postMessage
      worker.close()
    }
  })

  it.runIf(hasWorkers)('rejects with a plain Error once closed, so that the restore inflates on the main thread instead', async () => {
    const worker = startCompressionWorker()!
    worker.close()
    for (const error of [await worker.inflate(new Uint8Array([1, 2, 3]), 3).catch((e: unknown) => e), await worker.deflate(new Uint8Array([1, 2, 3])).catch((e: unknown) => e)]) {
      expect(error).toBeInstanceOf(Error)
      expect(StowageError.isInstance(error)).toBe(false)
    }
  })
})
