// A Worker that deflates and inflates with the browser's native CompressionStream and
// DecompressionStream, so that a save deflates a segment beside the main thread while the main
// thread encodes the next one, and a restore inflates the next segment while the main thread
// decodes this one (on the main thread, the streams' work runs between the codec's steps and adds
// to them). Its code is the function below, with no imports, started from a Blob URL. Where there
// are no Workers, no compression streams, or no Blob URL workers (a Content-Security-Policy
// without `worker-src blob:`), there is no worker and the codec does it on the main thread.
import { StowageError, StowageErrorCode, type AsyncDeflate, type AsyncInflate } from '@stowage/core'

// The worker's message handler. It runs in the worker as the text of this function (so it refers
// to nothing outside it): deflates `bytes` (`limit` 0), or inflates them into at most `limit` bytes
// (the payload size the envelope announces), stopping as soon as the stream would pass it; answers
// with the bytes (transferred) or an error message.
async function inWorker(event: MessageEvent<{ id: number; bytes: Uint8Array<ArrayBuffer>; limit: number }>): Promise<void> {
  const { id, bytes, limit } = event.data
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
    postMessage({ id, buffer: out.buffer, length: at }, { transfer: [out.buffer] })
  } catch (e) {
    postMessage({ id, error: String((e as Error)?.message ?? e) })
  }
}

/** Longest wait for one answer before the worker counts as failed (and the caller does the work itself). */
const ANSWER_TIMEOUT_MS = 5000

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
  worker.onmessage = ({ data }: MessageEvent<{ id: number; buffer?: ArrayBuffer; length?: number; error?: string }>) => {
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
  // `limit` 0 deflates, else inflates to at most `limit` bytes.
  const ask = (bytes: Uint8Array, limit: number) =>
    new Promise<Uint8Array>((resolve, reject) => {
      if (failed !== undefined) return reject(failed)
      const id = next++
      const timer = setTimeout(() => fail(new Error(`the compression worker did not answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS)
      waiting.set(id, { inflating: limit > 0, resolve, reject, timer })
      // A copy of its own, moved to the worker (the caller keeps its bytes).
      const copy = Uint8Array.prototype.slice.call(bytes)
      worker.postMessage({ id, bytes: copy, limit }, [copy.buffer])
    })
  return {
    deflate: (payload) => ask(payload, 0),
    inflate: (deflated, payloadLength) => (payloadLength === 0 ? Promise.resolve(new Uint8Array(0)) : ask(deflated, payloadLength)),
    close() {
      worker.terminate()
      URL.revokeObjectURL(url)
      fail(new Error('the compression worker was closed'))
    },
  }
}
