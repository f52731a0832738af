import { deflate, deflateSync, Inflate, inflateSync, type FlateError } from 'fflate'
import type { CompressionBackend, CompressionLevel } from './compression.js'
import { crc32 } from './crc32.js'
import { StowageErrorCode } from './error-codes.js'
import { StowageError } from './stowage-error.js'

// Below these sizes the async functions do the work synchronously: starting a worker or a
// stream costs more than deflating or inflating a small payload on the spot.
const ASYNC_DEFLATE_MIN = 256 * 1024
const ASYNC_INFLATE_MIN = 64 * 1024
// fflate writes nothing past a caller-supplied output buffer but keeps decoding, so a one-shot
// inflate of n input bytes may spin through up to ~1032·n output bytes. Above this input size
// the stream is fed in slices and stopped as soon as it produces more than expected.
const ONE_SHOT_INFLATE_MAX = 64 * 1024
const SLICE = 16 * 1024

function inflateError(e: unknown): StowageError {
  if (e instanceof StowageError) return e
  const code = (e as FlateError | undefined)?.code
  // fflate error 0 is "unexpected EOF": the compressed stream was cut short.
  return code === 0
    ? new StowageError(StowageErrorCode.TRUNCATED, 'the compressed payload ends early', { cause: e })
    : new StowageError(StowageErrorCode.CORRUPT, 'the compressed payload is not valid deflate data', { cause: e })
}

function tooLong(expected: number): StowageError {
  return new StowageError(StowageErrorCode.CORRUPT, `the compressed payload inflates to more than the ${expected} bytes announced`)
}

function checkLength(out: Uint8Array, expected: number): Uint8Array {
  if (out.length !== expected) {
    throw new StowageError(StowageErrorCode.TRUNCATED, `the compressed payload inflates to ${out.length} bytes, not ${expected}`)
  }
  return out
}

function inflateSliced(data: Uint8Array, expected: number): Uint8Array {
  const out = new Uint8Array(expected)
  let written = 0
  const inflater = new Inflate((chunk) => {
    if (written + chunk.length > expected) throw tooLong(expected)
    out.set(chunk, written)
    written += chunk.length
  })
  for (let i = 0; i < data.length; i += SLICE) {
    inflater.push(data.subarray(i, Math.min(i + SLICE, data.length)), i + SLICE >= data.length)
  }
  return checkLength(out.subarray(0, written), expected)
}

async function inflateStream(data: Uint8Array, expected: number): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'))
  const reader = stream.getReader()
  const out = new Uint8Array(expected)
  let written = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (written + value.length > expected) throw tooLong(expected)
      out.set(value, written)
      written += value.length
    }
  } catch (e) {
    await reader.cancel().catch(() => {})
    throw inflateError(e instanceof TypeError ? Object.assign(e, { code: 1 }) : e)
  }
  return checkLength(out.subarray(0, written), expected)
}

/** fflate in JavaScript, CompressionStream where it helps: runs in every JavaScript runtime. */
export const portableBackend: CompressionBackend = {
  name: 'fflate',
  asyncDeflateMin: ASYNC_DEFLATE_MIN,
  deflateSync(data, level) {
    return deflateSync(data, { level })
  },
  inflateSync(data, expected) {
    try {
      if (data.length > ONE_SHOT_INFLATE_MAX) return inflateSliced(data, expected)
      return checkLength(inflateSync(data, { out: new Uint8Array(expected) }), expected)
    } catch (e) {
      throw inflateError(e)
    }
  },
  deflateAsync(data, level: CompressionLevel) {
    if (data.length < ASYNC_DEFLATE_MIN) return Promise.resolve(deflateSync(data, { level }))
    // fflate's async deflate runs the same one-shot deflate in a worker, so the bytes equal
    // the sync path's. Where workers cannot start (a strict CSP), deflate here instead.
    return new Promise((resolve) => {
      deflate(data, { level }, (err, out) => resolve(err ? deflateSync(data, { level }) : out))
    })
  },
  async inflateAsync(data, expected) {
    if (data.length < ASYNC_INFLATE_MIN || typeof DecompressionStream === 'undefined') {
      return portableBackend.inflateSync(data, expected)
    }
    return inflateStream(data, expected)
  },
  crc32,
}
