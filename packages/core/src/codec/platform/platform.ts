import type { ColumnPool } from '../column-pool.js'
import type { StringTables } from '../types/string-table.js'

/** Raw deflate compression level: 0 stores, 1 is fastest, 9 is smallest. */
export type CompressionLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9

/** Why an inflate failed; the codec turns it into a StowageError code. */
export type InflateProblem = 'truncated' | 'corrupt' | 'too-long' | 'trailing-bytes'

/** What a platform file throws when an inflate fails: an Error with a {@link InflateProblem}. */
export interface InflateFailure extends Error {
  readonly problem: InflateProblem
}

/**
 * Builds an {@link InflateFailure}. Platform files import nothing else from core but their string
 * table writer and the Node file's column pool, so code one platform alone runs stays out of the
 * other's build.
 */
export function inflateFailure(problem: InflateProblem, message: string, cause?: unknown): InflateFailure {
  return Object.assign(new Error(message, { cause }), { problem })
}

/**
 * What the codec needs from a runtime, chosen by the `#platform` import condition of the package
 * (platform/node.ts with native zlib on Node, platform/portable.ts with fflate everywhere else).
 * The two produce bytes the other reads.
 *
 * Inflate functions return exactly `expectedLength` bytes or throw an {@link InflateFailure}:
 * they never produce more than `expectedLength` bytes on the way, and refuse bytes after the end
 * of the deflate stream.
 */
export interface Platform {
  readonly name: string
  /** The default `compressThreshold` here: where deflating pays on this runtime (see options.ts). */
  readonly compressThreshold: number
  /** Payloads smaller than this are deflated synchronously even by deflateAsync (the hand-off costs more). */
  readonly asyncDeflateMin: number
  /**
   * Makes the arrays a decoder reads large RECORDS columns into, kept from one decode to the next
   * (see column-pool.ts); none where new arrays cost less.
   */
  readonly columnPool?: () => ColumnPool
  deflateSync(data: Uint8Array, level: CompressionLevel, dictionary: Uint8Array | undefined): Uint8Array
  inflateSync(data: Uint8Array, expectedLength: number, dictionary: Uint8Array | undefined): Uint8Array
  /**
   * What the first `inputBytes` of a deflate stream inflate to (the stream may go on): lets the
   * codec look at the start of a large payload before inflating all of it. Returns an empty array
   * when the start is not valid deflate (the full inflate will say why).
   */
  inflatePrefix(data: Uint8Array, inputBytes: number, dictionary: Uint8Array | undefined): Uint8Array
  deflateAsync(data: Uint8Array, level: CompressionLevel, dictionary: Uint8Array | undefined): Promise<Uint8Array>
  inflateAsync(data: Uint8Array, expectedLength: number, dictionary: Uint8Array | undefined): Promise<Uint8Array>
  /**
   * A CRC-32 faster than crc32.ts on large inputs, when the runtime has one: zlib's on Node; in the
   * portable build WebAssembly, which also runs fast from its first call (it answers with crc32.ts
   * until its module is compiled). The codec uses it for large inputs.
   */
  readonly fastCrc32: ((data: Uint8Array, crc: number) => number) | undefined
  /** Starts what the platform prepares in the background when a codec is made (the portable build compiles its WebAssembly CRC). */
  readonly prepare?: () => void
  /**
   * `bytes[start..end)` as a string of one UTF-16 code unit per byte, used by the decoder to cut
   * ASCII strings out of one conversion of a window of the payload. Any single-byte mapping works;
   * only ASCII ranges are ever read from it.
   */
  byteString(bytes: Uint8Array, start: number, end: number): string
  /**
   * The writer of a value's string tables (formats 3 and 4) for an encoder: strings joined and
   * written by one call at the end in browsers (one call into TextEncoder beats one per string),
   * each written as it comes on Node (Buffer's writer per string is faster than joining them
   * first). The bytes are the same.
   */
  stringTables(maxBytes: number): StringTables
  /** A buffer for the encoder to write into: a Node Buffer on Node (its utf8Write is the fastest string writer there). */
  alloc(size: number): Uint8Array
  /** Writes `s` as UTF-8 into `out` (made by {@link Platform.alloc}) at `at`; room for 3 bytes per code unit is ensured. Returns the bytes written. */
  writeUtf8(out: Uint8Array, s: string, at: number): number
  /**
   * `bytes` as the package hands them to its callers, over the same memory (no copy): a Buffer on
   * Node, where client libraries take anything else for text (ioredis sends a plain Uint8Array as
   * "193,2,0,…"), the array itself elsewhere.
   */
  handOut(bytes: Uint8Array): Uint8Array
}
