// The platform on Node and Bun (import condition "node" of `#platform`): native zlib, zlib's CRC-32,
// and Buffer's string functions. Deno matches "node" too, but its condition "deno" comes first and
// gives it the portable file: Deno's node:zlib ignores the `dictionary` option both ways, so it
// could not read envelopes deflated against a dictionary (tools/runtimes runs this on Deno). Its
// deflate bytes and the portable file's are read by both.
import { promisify } from 'node:util'
import * as zlib from 'node:zlib'
import { ColumnPool } from '../column-pool.js'
import { StreamedTables } from '../types/streamed-tables.js'
import { inflateFailure, type InflateFailure, type Platform } from './platform.js'

// Below these sizes the async functions work synchronously: handing zlib work to the thread pool
// and back costs more (tens of µs) than deflating or inflating a small payload on the spot.
const ASYNC_DEFLATE_MIN = 128 * 1024
const ASYNC_INFLATE_MIN = 256 * 1024

type InflateResult = { buffer: Buffer; engine: { bytesWritten: number } }
type InflateOptions = zlib.ZlibOptions & { info: true }
const deflateRaw = promisify(zlib.deflateRaw)
const inflateRaw = promisify(zlib.inflateRaw) as unknown as (data: Uint8Array, options: InflateOptions) => Promise<InflateResult>
const inflateRawSync = zlib.inflateRawSync as unknown as (data: Uint8Array, options: InflateOptions) => InflateResult
// zlib.crc32 arrived in Node 20.15 and 22.2.
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32
const { latin1Slice, utf8Write } = Buffer.prototype as unknown as {
  latin1Slice(this: Uint8Array, start: number, end: number): string
  utf8Write(this: Uint8Array, s: string, offset: number): number
}

// A plain Uint8Array over a Buffer's memory: Buffer's own slice() shares memory, Uint8Array's copies.
function toBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
}

function inflateError(e: unknown, expected: number): InflateFailure {
  const code = (e as { code?: string }).code
  if (code === 'ERR_BUFFER_TOO_LARGE') return inflateFailure('too-long', `the compressed payload inflates to more than the ${expected} bytes announced`, e)
  if (code === 'Z_BUF_ERROR') return inflateFailure('truncated', 'the compressed payload ends early', e)
  return inflateFailure('corrupt', 'the compressed payload is not valid deflate data', e)
}

// A deflate stream never refers further back than the bytes before it (and its dictionary), so
// a window no larger than those gives the same bytes while zlib sets up less memory per call:
// small values deflate ~20% faster (apps/bench/RESULTS.md, "Compression policy").
function windowBits(length: number, dictionary: Uint8Array | undefined): number {
  return Math.min(15, Math.max(9, Math.ceil(Math.log2(length + (dictionary?.length ?? 0) + 1))))
}

function deflateOptions(length: number, level: number, dictionary: Uint8Array | undefined): zlib.ZlibOptions {
  const bits = windowBits(length, dictionary)
  const options: zlib.ZlibOptions = { level, windowBits: bits, memLevel: Math.max(1, Math.min(8, bits - 6)) }
  if (dictionary !== undefined) options.dictionary = dictionary
  return options
}

function inflateOptions(expected: number, dictionary: Uint8Array | undefined): InflateOptions {
  // maxOutputLength stops zlib as soon as the stream outgrows what the envelope announced; info
  // gives the engine, whose bytesWritten says where the deflate stream ended. The window must
  // hold what the stream may refer back to: all of the output, and the dictionary.
  const options: InflateOptions = { maxOutputLength: Math.max(expected, 1), info: true, windowBits: windowBits(expected, dictionary) }
  if (dictionary !== undefined) options.dictionary = dictionary
  return options
}

function checked(data: Uint8Array, result: InflateResult, expected: number): Uint8Array {
  if (result.engine.bytesWritten !== data.length) throw inflateFailure('trailing-bytes', 'bytes follow the end of the compressed payload')
  // Past `expected` only when 0 bytes were announced (maxOutputLength is at least 1).
  if (result.buffer.length > expected) throw inflateFailure('too-long', `the compressed payload inflates to more than the ${expected} bytes announced`)
  if (result.buffer.length !== expected) throw inflateFailure('truncated', `the compressed payload inflates to ${result.buffer.length} bytes, not ${expected}`)
  return toBytes(result.buffer)
}

/** Native zlib: Node's fast path. */
export const platform: Platform = {
  name: 'node:zlib',
  compressThreshold: 1024,
  asyncDeflateMin: ASYNC_DEFLATE_MIN,
  columnPool: () => new ColumnPool(),
  deflateSync(data, level, dictionary) {
    return toBytes(zlib.deflateRawSync(data, deflateOptions(data.length, level, dictionary)))
  },
  inflateSync(data, expected, dictionary) {
    let result: InflateResult
    try {
      result = inflateRawSync(data, inflateOptions(expected, dictionary))
    } catch (e) {
      throw inflateError(e, expected)
    }
    return checked(data, result, expected)
  },
  inflatePrefix(data, inputBytes, dictionary) {
    try {
      // Z_SYNC_FLUSH returns what the input so far inflates to, where Z_FINISH would call it truncated.
      const options: zlib.ZlibOptions = { finishFlush: zlib.constants.Z_SYNC_FLUSH }
      if (dictionary !== undefined) options.dictionary = dictionary
      return toBytes(zlib.inflateRawSync(data.subarray(0, inputBytes), options))
    } catch {
      return new Uint8Array(0)
    }
  },
  async deflateAsync(data, level, dictionary) {
    if (data.length < ASYNC_DEFLATE_MIN) return platform.deflateSync(data, level, dictionary)
    return toBytes(await deflateRaw(data, deflateOptions(data.length, level, dictionary)))
  },
  async inflateAsync(data, expected, dictionary) {
    if (expected < ASYNC_INFLATE_MIN) return platform.inflateSync(data, expected, dictionary)
    let result: InflateResult
    try {
      result = await inflateRaw(data, inflateOptions(expected, dictionary))
    } catch (e) {
      throw inflateError(e, expected)
    }
    return checked(data, result, expected)
  },
  fastCrc32: nativeCrc32 === undefined ? undefined : (data, crc) => nativeCrc32(data, crc),
  byteString: (bytes, start, end) => latin1Slice.call(bytes, start, end),
  stringTables: (maxBytes) => new StreamedTables(platform, maxBytes),
  alloc: (size) => Buffer.allocUnsafeSlow(size),
  writeUtf8: (out, s, at) => utf8Write.call(out, s, at),
  // ioredis sends a plain Uint8Array argument as its toString() text, so `redis.set(key, bytes)`
  // stored "193,2,0,…"; node-redis 5 and 6 throw a TypeError; a Buffer works with both, and with fs and sockets.
  handOut: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
}
