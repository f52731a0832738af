// The platform everywhere but Node (browsers, workers, Deno, Bun with the "browser" condition):
// fflate for deflate, DecompressionStream where it helps, TextEncoder/TextDecoder for strings.
// Nothing here touches Buffer or node: modules; its deflate bytes and the Node file's are read by both.
import { deflate, deflateSync, Inflate, inflateSync, type FlateError } from 'fflate'
import { inflateFailure, type InflateFailure, type Platform } from './platform.js'

// Below these sizes the async functions do the work synchronously: starting a worker or a
// stream costs more than deflating or inflating a small payload on the spot.
const ASYNC_DEFLATE_MIN = 256 * 1024
const ASYNC_INFLATE_MIN = 64 * 1024
// fflate writes nothing past a caller-supplied output buffer but keeps decoding, so a one-shot
// inflate of n input bytes may spin through up to ~1032·n output bytes. Above this input size
// the stream is fed in slices and stopped as soon as it produces more than expected.
const ONE_SHOT_INFLATE_MAX = 64 * 1024
const SLICE = 16 * 1024

const utf8 = new TextEncoder()
// windows-1252 maps every byte to exactly one UTF-16 code unit, which is all byteString needs.
const singleByte = new TextDecoder('latin1')

function inflateError(e: unknown): InflateFailure {
  if ((e as Partial<InflateFailure>)?.problem !== undefined) return e as InflateFailure
  // fflate error 0 is "unexpected EOF": the compressed stream was cut short.
  return (e as FlateError | undefined)?.code === 0
    ? inflateFailure('truncated', 'the compressed payload ends early', e)
    : inflateFailure('corrupt', 'the compressed payload is not valid deflate data', e)
}

function tooLong(expected: number): InflateFailure {
  return inflateFailure('too-long', `the compressed payload inflates to more than the ${expected} bytes announced`)
}

function checkLength(out: Uint8Array, expected: number): Uint8Array {
  if (out.length > expected) throw tooLong(expected)
  if (out.length !== expected) throw inflateFailure('truncated', `the compressed payload inflates to ${out.length} bytes, not ${expected}`)
  return out
}

// One byte more room than announced: a stream that fills it inflates to more than it should.
function inflateOneShot(data: Uint8Array, expected: number, dictionary: Uint8Array | undefined): Uint8Array {
  const out = new Uint8Array(expected + 1)
  return checkLength(inflateSync(data, dictionary === undefined ? { out } : { out, dictionary }), expected)
}

function inflateSliced(data: Uint8Array, expected: number, dictionary: Uint8Array | undefined): Uint8Array {
  const out = new Uint8Array(expected)
  let written = 0
  const onData = (chunk: Uint8Array) => {
    if (written + chunk.length > expected) throw tooLong(expected)
    out.set(chunk, written)
    written += chunk.length
  }
  const inflater = dictionary === undefined ? new Inflate(onData) : new Inflate({ dictionary }, onData)
  for (let i = 0; i < data.length; i += SLICE) inflater.push(data.subarray(i, Math.min(i + SLICE, data.length)), i + SLICE >= data.length)
  return checkLength(out.subarray(0, written), expected)
}

// DecompressionStream is native and runs without blocking; it refuses bytes after the end of the
// stream on its own (a TypeError, as for any bad stream).
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
    throw (e as Partial<InflateFailure>).problem !== undefined ? e : inflateFailure('corrupt', 'the compressed payload is not valid deflate data', e)
  }
  return checkLength(out.subarray(0, written), expected)
}

function inflateNow(data: Uint8Array, expected: number, dictionary: Uint8Array | undefined): Uint8Array {
  try {
    return data.length > ONE_SHOT_INFLATE_MAX ? inflateSliced(data, expected, dictionary) : inflateOneShot(data, expected, dictionary)
  } catch (e) {
    throw inflateError(e)
  }
}

/** fflate in JavaScript, DecompressionStream where it helps: runs in every JavaScript runtime. */
export const platform: Platform = {
  name: 'fflate',
  asyncDeflateMin: ASYNC_DEFLATE_MIN,
  deflateSync(data, level, dictionary) {
    return deflateSync(data, dictionary === undefined ? { level } : { level, dictionary })
  },
  inflateSync: inflateNow,
  deflateAsync(data, level, dictionary) {
    const options = dictionary === undefined ? { level } : { level, dictionary }
    if (data.length < ASYNC_DEFLATE_MIN) return Promise.resolve(deflateSync(data, options))
    // fflate's async deflate runs the same one-shot deflate in a worker, so the bytes equal the
    // sync path's. Where workers cannot start (a strict CSP), deflate here instead.
    return new Promise((resolve) => {
      deflate(data, options, (err, out) => resolve(err ? deflateSync(data, options) : out))
    })
  },
  async inflateAsync(data, expected, dictionary) {
    // DecompressionStream takes no preset dictionary.
    if (data.length < ASYNC_INFLATE_MIN || dictionary !== undefined || typeof DecompressionStream === 'undefined') return inflateNow(data, expected, dictionary)
    return inflateStream(data, expected)
  },
  nativeCrc32: undefined,
  byteString: (bytes, start, end) => singleByte.decode(bytes.subarray(start, end)),
  alloc: (size) => new Uint8Array(size),
  writeUtf8: (out, s, at) => utf8.encodeInto(s, out.subarray(at)).written,
}
