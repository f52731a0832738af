import type { CompressionLevel } from './compression.js'
import { StowageErrorCode } from './error-codes.js'
import type { Extension } from './extension.js'
import { USER_EXT_MAX } from './format.js'
import { StowageError } from './stowage-error.js'

/** When to deflate a payload: see {@link CodecOptions.compress}. */
export type CompressMode = 'auto' | 'always' | 'never'

/** Default of {@link CodecOptions.compress}. */
export const DEFAULT_COMPRESS: CompressMode = 'auto'
/** Default of {@link CodecOptions.level}: the fastest level; higher levels cost 2-5× the time for a few % (apps/bench). */
export const DEFAULT_LEVEL: CompressionLevel = 1
/** Default of {@link CodecOptions.compressThreshold}, in bytes of MessagePack; tuned by `pnpm bench` (apps/bench/RESULTS.md). */
export const DEFAULT_COMPRESS_THRESHOLD = 256
/** Default of {@link CodecOptions.minSavings}; tuned by `pnpm bench` (apps/bench/RESULTS.md). */
export const DEFAULT_MIN_SAVINGS = 0.1
/** Default of {@link CodecOptions.maxBytes}: 64 MiB. */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
/** Default of {@link CodecOptions.maxDepth}. */
export const DEFAULT_MAX_DEPTH = 100
/** The largest {@link CodecOptions.maxBytes}: the envelope stores lengths as uint32. */
export const MAX_BYTES_LIMIT = 0xffffffff

/** Options of {@link createCodec}, {@link encode} and {@link decode}. Every field is optional. */
export interface CodecOptions {
  /**
   * When to deflate the MessagePack payload. `'auto'` deflates payloads of at least
   * `compressThreshold` bytes and keeps the result only when it saves at least `minSavings`;
   * `'always'` keeps the deflated form whatever its size; `'never'` stores MessagePack as is.
   * Defaults to `'auto'`.
   */
  readonly compress?: CompressMode
  /** Raw deflate level, 0 (store) to 9 (smallest). Defaults to 1 ({@link DEFAULT_LEVEL}). */
  readonly level?: CompressionLevel
  /** With `compress: 'auto'`, payloads smaller than this many bytes are not deflated. Defaults to 256 ({@link DEFAULT_COMPRESS_THRESHOLD}). */
  readonly compressThreshold?: number
  /** With `compress: 'auto'`, the deflated form is kept only when it is at least this fraction smaller (0 to 1). Defaults to 0.1 ({@link DEFAULT_MIN_SAVINGS}). */
  readonly minSavings?: number
  /**
   * The largest MessagePack payload, uncompressed, that encode writes or decode accepts; decode
   * refuses a larger announced size before inflating anything. At most 2^32 - 1. Defaults to 64 MiB ({@link DEFAULT_MAX_BYTES}).
   */
  readonly maxBytes?: number
  /** How many arrays, objects, Maps, Sets and extensions may nest. Defaults to 100 ({@link DEFAULT_MAX_DEPTH}). */
  readonly maxDepth?: number
  /** Your class extensions; see {@link Extension}. Defaults to none. */
  readonly extensions?: readonly Extension[]
  /** An application schema version (uint32) written into every envelope this codec encodes. Defaults to none. */
  readonly schemaVersion?: number
}

/** Options after validation, with defaults filled in. */
export interface Settled {
  readonly compress: CompressMode
  readonly level: CompressionLevel
  readonly compressThreshold: number
  readonly minSavings: number
  readonly maxBytes: number
  readonly maxDepth: number
  readonly extensions: readonly Extension[]
  readonly schemaVersion: number | undefined
}

function invalid(message: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message)
}

function integerIn(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`)
  }
  return value
}

/**
 * Validates options and fills in defaults.
 * @throws {StowageError} INVALID_ARGUMENT for an unknown mode, an out-of-range number or a bad extension.
 */
export function settle(options: CodecOptions | undefined): Settled {
  const o = options ?? {}
  const compress = o.compress ?? DEFAULT_COMPRESS
  if (compress !== 'auto' && compress !== 'always' && compress !== 'never') {
    throw invalid(`compress must be 'auto', 'always' or 'never', got ${String(compress)}`)
  }
  const minSavings = o.minSavings ?? DEFAULT_MIN_SAVINGS
  if (typeof minSavings !== 'number' || !(minSavings >= 0 && minSavings <= 1)) {
    throw invalid(`minSavings must be a number from 0 to 1, got ${String(minSavings)}`)
  }
  const extensions = o.extensions ?? []
  const types = new Set<number>()
  for (const ext of extensions) {
    integerIn('extension type', ext?.type, -1, 0, USER_EXT_MAX)
    if (types.has(ext.type)) throw invalid(`two extensions use type ${ext.type}`)
    if (typeof ext.class !== 'function' || typeof ext.encode !== 'function' || typeof ext.decode !== 'function') {
      throw invalid(`extension ${ext.type} needs a class, an encode function and a decode function`)
    }
    types.add(ext.type)
  }
  return {
    compress,
    level: integerIn('level', o.level, 1, 0, 9) as CompressionLevel,
    compressThreshold: integerIn('compressThreshold', o.compressThreshold, DEFAULT_COMPRESS_THRESHOLD, 0, MAX_BYTES_LIMIT),
    minSavings,
    maxBytes: integerIn('maxBytes', o.maxBytes, DEFAULT_MAX_BYTES, 1, MAX_BYTES_LIMIT),
    maxDepth: integerIn('maxDepth', o.maxDepth, DEFAULT_MAX_DEPTH, 0, 10_000),
    extensions,
    schemaVersion: o.schemaVersion === undefined ? undefined : integerIn('schemaVersion', o.schemaVersion, 0, 0, 0xffffffff),
  }
}
