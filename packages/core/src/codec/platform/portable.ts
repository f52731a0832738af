// The platform everywhere but Node and Bun (browsers, workers, Deno, Bun with the "browser" condition):
// fflate for deflate, the native CompressionStream/DecompressionStream for large payloads in the
// async functions, TextEncoder/TextDecoder for strings. Nothing here touches Buffer or node:
// modules; its deflate bytes and the Node file's are read by both.
import { deflateSync, Inflate, inflateSync, type FlateError } from 'fflate'
import { crc32 } from '../crc32.js'
import { BAD_STORED_LENGTH, deflateEnd } from './deflate-end.js'
import { JoinedTables } from '../types/joined-tables.js'
import { inflateFailure, type InflateFailure, type Platform } from './platform.js'
import { startWasmCrc32, wasmCrc32 } from './wasm-crc32.js'

// From this payload size the async functions use the native streams, below it fflate in this
// thread: a stream costs ~0.7 ms to set up, and is 2–2.5× faster than fflate from ~200 KiB up
// (apps/bench/RESULTS.md, "fflate and the native streams in Chromium").
const NATIVE_STREAM_MIN = 256 * 1024
// Async inflates use the native stream from this payload size. Warm, fflate is faster up to ~200
// KiB, but the first inflates of a page run fflate (and the check for bytes after its stream) in
// V8's interpreter: a 55 kB payload took 10–50 ms on a first screen against ~1.5 ms through the
// stream, whose work is native from its first call (apps/bench, fetch-bench.ts).
const NATIVE_INFLATE_MIN = 16 * 1024
// Native stream work runs on the calling thread, one block per chunk written: chunks this size
// keep each block to about a millisecond.
const STREAM_CHUNK = 64 * 1024
// fflate writes nothing past a caller-supplied output buffer but keeps decoding, so a one-shot
// inflate of n input bytes may spin through up to ~1032·n output bytes. Above this input size
// the stream is fed in slices and stopped as soon as it produces more than expected: a hostile
// stream then costs at most ~16 MB of decoding (~80 ms), and honest ones 1.3-1.5× the one-shot time.
const ONE_SHOT_INFLATE_MAX = 16 * 1024
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
  // fflate hands `out` back untouched for no input at all: a stream that ends before it began.
  if (data.length === 0) throw inflateFailure('truncated', 'the compressed payload ends early')
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
  // A first slice of 1 KiB inflates to at most ~1 MB: a stream far longer than announced stops there.
  for (let i = 0, size = 1024; i < data.length; i += size, size = SLICE) inflater.push(data.subarray(i, Math.min(i + size, data.length)), i + size >= data.length)
  return checkLength(out.subarray(0, written), expected)
}

const hasStreams = typeof CompressionStream !== 'undefined' && typeof DecompressionStream !== 'undefined'

// Feeds `data` through a native (de)compression stream in chunks, collecting the output; stops as
// soon as it would pass `limit` bytes. DecompressionStream refuses bytes after the end of the
// deflate stream on its own, as it refuses any bad stream (a TypeError).
async function throughStream(data: Uint8Array, stream: CompressionStream | DecompressionStream, limit: number): Promise<Uint8Array> {
  const writer = stream.writable.getWriter()
  const writing = (async () => {
    for (let i = 0; i < data.length; i += STREAM_CHUNK) await writer.write(data.subarray(i, i + STREAM_CHUNK) as Uint8Array<ArrayBuffer>)
    await writer.close()
  })()
  writing.catch(() => {})
  const reader = stream.readable.getReader()
  const chunks: Uint8Array[] = []
  let length = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (length + value.length > limit) throw inflateFailure('too-long', `the compressed payload inflates to more than the ${limit} bytes announced`)
      chunks.push(value)
      length += value.length
    }
    await writing
  } catch (e) {
    await reader.cancel().catch(() => {})
    throw (e as Partial<InflateFailure>).problem !== undefined ? e : inflateFailure('corrupt', 'the compressed payload is not valid deflate data', e)
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array
  const out = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

function inflateNow(data: Uint8Array, expected: number, dictionary: Uint8Array | undefined): Uint8Array {
  let out: Uint8Array
  try {
    out = data.length > ONE_SHOT_INFLATE_MAX ? inflateSliced(data, expected, dictionary) : inflateOneShot(data, expected, dictionary)
  } catch (e) {
    throw inflateError(e)
  }
  // fflate stops at the end of the stream and ignores what follows, where zlib (the Node platform)
  // refuses it: the stream must end with the payload (see deflate-end.ts for why it is found so).
  const end = deflateEnd(data)
  if (end === BAD_STORED_LENGTH) throw inflateFailure('corrupt', 'the compressed payload is not valid deflate data')
  if (end !== data.length) throw inflateFailure('trailing-bytes', 'bytes follow the end of the compressed payload')
  return out
}

/** fflate in JavaScript, DecompressionStream where it helps: runs in every JavaScript runtime. */
export const platform: Platform = {
  name: 'fflate',
  // Deflate here is JavaScript, Chromium already Snappy-compresses IndexedDB values from 64 KiB,
  // and the native CompressionStream (used by encodeAsync) only pays from here: smaller values
  // written in a browser stay uncompressed (envelopes that come from a server keep their deflate).
  compressThreshold: NATIVE_STREAM_MIN,
  asyncDeflateMin: NATIVE_STREAM_MIN,
  deflateSync(data, level, dictionary) {
    return deflateSync(data, dictionary === undefined ? { level } : { level, dictionary })
  },
  inflateSync: inflateNow,
  inflatePrefix(data, inputBytes, dictionary) {
    const chunks: Uint8Array[] = []
    try {
      const onData = (chunk: Uint8Array) => chunks.push(chunk)
      const inflater = dictionary === undefined ? new Inflate(onData) : new Inflate({ dictionary }, onData)
      inflater.push(data.subarray(0, inputBytes), false)
    } catch {
      return new Uint8Array(0)
    }
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
    let at = 0
    for (const chunk of chunks) {
      out.set(chunk, at)
      at += chunk.length
    }
    return out
  },
  async deflateAsync(data, level, dictionary) {
    // Streams take no level (zlib's default, 6) and no preset dictionary.
    if (data.length < NATIVE_STREAM_MIN || dictionary !== undefined || level === 0 || !hasStreams) {
      return deflateSync(data, dictionary === undefined ? { level } : { level, dictionary })
    }
    return throughStream(data, new CompressionStream('deflate-raw'), Infinity)
  },
  async inflateAsync(data, expected, dictionary) {
    if (expected < NATIVE_INFLATE_MIN || dictionary !== undefined || !hasStreams) return inflateNow(data, expected, dictionary)
    try {
      return checkLength(await throughStream(data, new DecompressionStream('deflate-raw'), expected), expected)
    } catch (e) {
      // The stream's errors do not say why: the same bytes through fflate do (TRUNCATED for a
      // stream cut short, CORRUPT for bad data), as the synchronous path says.
      if ((e as Partial<InflateFailure>).problem === 'corrupt') inflateNow(data, expected, dictionary)
      throw e
    }
  },
  fastCrc32: (data, crc) => wasmCrc32(data, crc) ?? crc32(data, crc),
  prepare: () => void startWasmCrc32(),
  byteString: (bytes, start, end) => singleByte.decode(bytes.subarray(start, end)),
  stringTables: (maxBytes) => new JoinedTables(platform, maxBytes),
  alloc: (size) => new Uint8Array(size),
  writeUtf8: (out, s, at) => utf8.encodeInto(s, out.subarray(at)).written,
  handOut: (bytes) => bytes,
}
