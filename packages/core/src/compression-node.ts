import { promisify } from 'node:util'
import * as zlib from 'node:zlib'
import type { CompressionBackend, CompressionLevel } from './compression.js'
import { crc32 as portableCrc32 } from './crc32.js'
import { StowageErrorCode } from './error-codes.js'
import { StowageError } from './stowage-error.js'

// Below these sizes the async functions work synchronously: handing zlib work to the thread pool
// and back costs more (tens of µs) than deflating or inflating a small payload on the spot.
const ASYNC_DEFLATE_MIN = 128 * 1024
const ASYNC_INFLATE_MIN = 256 * 1024

const deflateRaw = promisify(zlib.deflateRaw)
const inflateRaw = promisify(zlib.inflateRaw)
// zlib.crc32 arrived in Node 20.15 and 22.2; older Nodes use the portable table.
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32

function toBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
}

function inflateError(e: unknown, expected: number): StowageError {
  const code = (e as { code?: string }).code
  if (code === 'ERR_BUFFER_TOO_LARGE') {
    return new StowageError(StowageErrorCode.CORRUPT, `the compressed payload inflates to more than the ${expected} bytes announced`, { cause: e })
  }
  if (code === 'Z_BUF_ERROR') {
    return new StowageError(StowageErrorCode.TRUNCATED, 'the compressed payload ends early', { cause: e })
  }
  return new StowageError(StowageErrorCode.CORRUPT, 'the compressed payload is not valid deflate data', { cause: e })
}

function checkLength(out: Buffer, expected: number): Uint8Array {
  if (out.length !== expected) {
    throw new StowageError(StowageErrorCode.TRUNCATED, `the compressed payload inflates to ${out.length} bytes, not ${expected}`)
  }
  return toBytes(out)
}

/** Native zlib: Node's fast path. Its raw deflate streams are read by fflate and the other way round. */
export const nodeBackend: CompressionBackend = {
  name: 'node:zlib',
  asyncDeflateMin: ASYNC_DEFLATE_MIN,
  deflateSync(data, level: CompressionLevel) {
    return toBytes(zlib.deflateRawSync(data, { level }))
  },
  inflateSync(data, expected) {
    let out: Buffer
    try {
      // maxOutputLength stops zlib as soon as the stream outgrows what the envelope announced.
      out = zlib.inflateRawSync(data, { maxOutputLength: Math.max(expected, 1) })
    } catch (e) {
      throw inflateError(e, expected)
    }
    return checkLength(out, expected)
  },
  async deflateAsync(data, level) {
    if (data.length < ASYNC_DEFLATE_MIN) return nodeBackend.deflateSync(data, level)
    return toBytes(await deflateRaw(data, { level }))
  },
  async inflateAsync(data, expected) {
    if (expected < ASYNC_INFLATE_MIN) return nodeBackend.inflateSync(data, expected)
    let out: Buffer
    try {
      out = await inflateRaw(data, { maxOutputLength: Math.max(expected, 1) })
    } catch (e) {
      throw inflateError(e, expected)
    }
    return checkLength(out, expected)
  },
  // Below ~512 bytes the JavaScript table beats the cost of calling into C++.
  crc32: nativeCrc32 ? (data, crc = 0) => (data.length < 512 ? portableCrc32(data, crc) : nativeCrc32(data, crc)) : portableCrc32,
}
