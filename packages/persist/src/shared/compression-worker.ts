// A Worker that deflates and inflates with the browser's native CompressionStream and
// DecompressionStream, so that a save deflates a segment beside the main thread while the main
// thread encodes the next one, and a restore inflates the next segment while the main thread
// decodes this one (on the main thread, the streams' work runs between the codec's steps and adds
// to them). Its code is the function below, with no imports, started from a Blob URL. Where there
// are no Workers, no compression streams, or no Blob URL workers (a Content-Security-Policy
// without `worker-src blob:`), there is no worker and the codec does it on the main thread.
import { StowageError, StowageErrorCode, type AsyncDeflate, type AsyncInflate } from '@stowage/core'

/** One piece of work for the worker: see {@link inWorker}. */
interface Job {
  readonly id: number
  readonly input: ArrayBuffer
  readonly length: number
  readonly limit: number
}

// The worker's message handler. It runs in the worker as the text of this function (so it refers
// to nothing outside it). A message holds one or more jobs, done one after another in their order:
// each deflates the first `length` bytes of `input` (`limit` 0), or inflates them into at most
// `limit` bytes (the payload size the envelope announces), stopping as soon as the stream would
// pass it, and answers at once with the bytes or an error message, handing `input` back (both
// transferred: the streams copy what is written to them).
async function inWorker(event: MessageEvent<{ jobs: readonly Job[] }>): Promise<void> {
  for (const job of event.data.jobs) await one(job)
  async function one({ id, input, length, limit }: Job): Promise<void> {
    const bytes = new Uint8Array(input, 0, length)
    try {
      const stream = limit === 0 ? new CompressionStream('deflate-raw') : new DecompressionStream('deflate-raw')
      const writer = stream.writable.getWriter()
      writer.write(bytes).catch(() => {})
      writer.close().catch(() => {})
      const reader = stream.readable.getReader()
      // Deflated output is at most about the input's size (stored blocks add 5 bytes per 64 KiB).
      let out = new Uint8Array(limit === 0 ? bytes.length + 64 : limit)
      let at = 0
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        if (limit === 0 && at + value.length > out.length) {
          const grown = new Uint8Array(2 * (at + value.length))
          grown.set(out.subarray(0, at))
          out = grown
        } else if (at + value.length > out.length) {
          reader.cancel().catch(() => {})
          throw new Error(`the compressed payload inflates to more than the ${limit} bytes announced`)
        }
        out.set(value, at)
        at += value.length
      }
      postMessage({ id, buffer: out.buffer, length: at, input }, { transfer: [out.buffer, input] })
    } catch (e) {
      postMessage({ id, error: String((e as Error)?.message ?? e), input }, { transfer: [input] })
    }
  }
}

/** Longest wait for one answer before the worker counts as failed (and the caller does the work itself). */
const ANSWER_TIMEOUT_MS = 5000
/**
 * Buffers the worker handed back, kept to carry later bytes to it (the largest ones). A save sends
 * one payload of 0.3–1 MB per segment: copying each into a new buffer took 52 ms of the main
 * thread in profiles of a 5,000-query save after a reload in Chromium 156 (most of it in the few
 * calls a garbage collection landed in), 33 ms with these, which make 9 buffers for its 70
 * payloads (15 for the 39 of the small queries' save).
 * The save's own time moved within the machine's noise: 489–559 ms with them against 525–540 ms
 * without, in two runs alternating the builds (apps/bench, persist-profile.ts, persist-bench.ts).
 * As many as a restore has in flight: it inflates up to six segments ahead.
 */
const SPARE_BUFFERS = 6

/**
 * The size of a new buffer for `length` bytes: a quarter more (in whole 4 KiB pages), so that later
 * payloads of about the same size travel in it. A save's segments differ by a few percent from one
 * to the next, and exact-size buffers fitted only the smaller ones. Past 16 MiB, exactly `length`
 * (no segment is that large: a value of its own, whose buffer is not worth the room).
 */
function withRoom(length: number): number {
  const roomy = Math.ceil((length * 1.25) / 4096) * 4096
  return length <= 4096 || roomy > 16 * 1024 * 1024 ? length : roomy
}

/** A worker that deflates and inflates, and the way to stop it. */
export interface CompressionWorker {
  /** For `encodeAsync`'s `deflate`: a failed worker rejects with a plain Error. */
  readonly deflate: AsyncDeflate
  /** For `decodeAsync`'s `inflate`: bad deflate data rejects with CORRUPT, a failed worker with a plain Error. */
  readonly inflate: AsyncInflate
  /** Stops the worker; work still waiting rejects with a plain Error. */
  close(): void
}

interface Waiting {
  readonly inflating: boolean
  resolve(bytes: Uint8Array): void
  reject(error: Error): void
  timer: ReturnType<typeof setTimeout>
}

/**
 * Starts a {@link CompressionWorker}, or returns `undefined` where none can run.
 *
 * @returns the worker, or `undefined`.
 */
export function startCompressionWorker(): CompressionWorker | undefined {
  if (typeof Worker === 'undefined' || typeof DecompressionStream === 'undefined' || typeof CompressionStream === 'undefined' || typeof URL === 'undefined' || typeof URL.createObjectURL !== 'function') return undefined
  let url: string
  let worker: Worker
  try {
    url = URL.createObjectURL(new Blob([`onmessage = ${String(inWorker)}`], { type: 'text/javascript' }))
    worker = new Worker(url)
  } catch {
    return undefined
  }
  const waiting = new Map<number, Waiting>()
  const spare: ArrayBuffer[] = []
  // Kept while there is room, or in place of the smallest kept when larger.
  const keepSpare = (buffer: ArrayBuffer) => {
    if (spare.length < SPARE_BUFFERS) return void spare.push(buffer)
    const smallest = spare.reduce((at, b, i) => (b.byteLength < (spare[at] as ArrayBuffer).byteLength ? i : at), 0)
    if (buffer.byteLength > (spare[smallest] as ArrayBuffer).byteLength) spare[smallest] = buffer
  }
  let next = 0
  let failed: Error | undefined
  const fail = (error: Error) => {
    failed ??= error
    for (const w of waiting.values()) {
      clearTimeout(w.timer)
      w.reject(failed)
    }
    waiting.clear()
  }
  worker.onmessage = ({ data }: MessageEvent<{ id: number; buffer?: ArrayBuffer; length?: number; error?: string; input?: ArrayBuffer }>) => {
    if (data.input instanceof ArrayBuffer) keepSpare(data.input)
    const w = waiting.get(data.id)
    if (w === undefined) return
    waiting.delete(data.id)
    clearTimeout(w.timer)
    if (data.error !== undefined) w.reject(w.inflating ? new StowageError(StowageErrorCode.CORRUPT, `the compressed payload is not valid deflate data: ${data.error}`) : new Error(`the compression worker could not deflate: ${data.error}`))
    else w.resolve(new Uint8Array(data.buffer as ArrayBuffer, 0, data.length))
  }
  worker.onerror = (event) => {
    event.preventDefault()
    fail(new Error(`the compression worker failed: ${event.message}`))
  }
  worker.onmessageerror = () => fail(new Error('the compression worker sent what could not be read'))
  // Asks made in one task go to the worker in one message. Each message is a task posted to the
  // worker's thread, and on a machine with few cores waking that thread can cost the main thread
  // its core for a moment: in restores of 5,000 queries after a reload in Chromium 156 on two
  // cores, single postMessage calls took up to 3 ms. A restore asks for its segments in groups
  // (restore-client.ts): the small queries' 39 messages became 12, and their time in postMessage
  // went from 14 ms to 2 (apps/bench/RESULTS.md, "Messages to the compression worker").
  let queued: Job[] = []
  const post = () => {
    const jobs = queued
    queued = []
    try {
      worker.postMessage({ jobs }, jobs.map((job) => job.input))
    } catch (e) {
      // Its jobs would wait out their timeout: the caller does the work itself at once instead.
      fail(new Error(`the compression worker could not be sent its work: ${String((e as Error)?.message ?? e)}`))
    }
  }
  // `limit` 0 deflates, else inflates to at most `limit` bytes.
  const ask = (bytes: Uint8Array, limit: number) =>
    new Promise<Uint8Array>((resolve, reject) => {
      if (failed !== undefined) return reject(failed)
      const id = next++
      const timer = setTimeout(() => fail(new Error(`the compression worker did not answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS)
      waiting.set(id, { inflating: limit > 0, resolve, reject, timer })
      // A copy of its own, moved to the worker (the caller keeps its bytes), in a buffer the worker
      // handed back when one is large enough.
      const fits = spare.findIndex((b) => b.byteLength >= bytes.length)
      const input = fits >= 0 ? (spare.splice(fits, 1)[0] as ArrayBuffer) : new ArrayBuffer(withRoom(bytes.length))
      new Uint8Array(input, 0, bytes.length).set(bytes)
      if (queued.length === 0) queueMicrotask(post)
      queued.push({ id, input, length: bytes.length, limit })
    })
  return {
    deflate: (payload) => ask(payload, 0),
    inflate: (deflated, payloadLength) => (payloadLength === 0 ? Promise.resolve(new Uint8Array(0)) : ask(deflated, payloadLength)),
    close() {
      worker.terminate()
      URL.revokeObjectURL(url)
      spare.length = 0
      fail(new Error('the compression worker was closed'))
    },
  }
}
