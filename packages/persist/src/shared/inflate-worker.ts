// A Worker that inflates deflate streams with the browser's native DecompressionStream, so that a
// restore inflates the next segment beside the main thread while the main thread decodes this one
// (on the main thread, DecompressionStream's work runs between the decoder's steps and adds to
// them). Its code is the few lines below, with no imports, started from a Blob URL. Where there
// are no Workers, no DecompressionStream, or no Blob URL workers (a Content-Security-Policy
// without `worker-src blob:`), there is no worker and the codec inflates on the main thread.
import { StowageError, StowageErrorCode, type AsyncInflate } from '@stowage/core'

// The worker's message handler. It runs in the worker as the text of this function (so it refers
// to nothing outside it): inflates `bytes` into at most `limit` bytes (the payload size the
// envelope announces), stopping as soon as the stream would pass it, and answers with the bytes
// (transferred) or an error message.
async function inflateInWorker(event: MessageEvent<{ id: number; bytes: Uint8Array<ArrayBuffer>; limit: number }>): Promise<void> {
  const { id, bytes, limit } = event.data
  try {
    const stream = new DecompressionStream('deflate-raw')
    const writer = stream.writable.getWriter()
    writer.write(bytes).catch(() => {})
    writer.close().catch(() => {})
    const reader = stream.readable.getReader()
    const out = new Uint8Array(limit)
    let at = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (at + value.length > limit) {
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

/** Longest wait for one answer before the worker counts as failed (and the caller inflates itself). */
const ANSWER_TIMEOUT_MS = 5000

/** A worker that inflates, and the way to stop it. */
export interface InflateWorker {
  /** For `decodeAsync`'s `inflate`: bad deflate data rejects with CORRUPT, a failed worker with a plain Error. */
  readonly inflate: AsyncInflate
  /** Stops the worker; inflates still waiting reject with a plain Error. */
  close(): void
}

interface Waiting {
  resolve(bytes: Uint8Array): void
  reject(error: Error): void
  timer: ReturnType<typeof setTimeout>
}

/**
 * Starts an {@link InflateWorker}, or returns `undefined` where none can run.
 *
 * @returns the worker, or `undefined`.
 */
export function startInflateWorker(): InflateWorker | undefined {
  if (typeof Worker === 'undefined' || typeof DecompressionStream === 'undefined' || typeof URL === 'undefined' || typeof URL.createObjectURL !== 'function') return undefined
  let url: string
  let worker: Worker
  try {
    url = URL.createObjectURL(new Blob([`onmessage = ${String(inflateInWorker)}`], { type: 'text/javascript' }))
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
    if (data.error !== undefined) w.reject(new StowageError(StowageErrorCode.CORRUPT, `the compressed payload is not valid deflate data: ${data.error}`))
    else w.resolve(new Uint8Array(data.buffer as ArrayBuffer, 0, data.length))
  }
  worker.onerror = (event) => {
    event.preventDefault()
    fail(new Error(`the inflate worker failed: ${event.message}`))
  }
  worker.onmessageerror = () => fail(new Error('the inflate worker sent what could not be read'))
  return {
    inflate: (deflated, payloadLength) =>
      new Promise<Uint8Array>((resolve, reject) => {
        if (failed !== undefined) return reject(failed)
        const id = next++
        const timer = setTimeout(() => fail(new Error(`the inflate worker did not answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS)
        waiting.set(id, { resolve, reject, timer })
        // A copy of its own, moved to the worker (the caller keeps its bytes).
        const copy = Uint8Array.prototype.slice.call(deflated)
        worker.postMessage({ id, bytes: copy, limit: payloadLength }, [copy.buffer])
      }),
    close() {
      worker.terminate()
      URL.revokeObjectURL(url)
      fail(new Error('the inflate worker was closed'))
    },
  }
}
