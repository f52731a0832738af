import { invalidArgument } from '../errors/make.js'
import { checkOptionNames } from '../errors/option-names.js'
import { crc32 } from './crc32.js'
import type { Extension } from './extension.js'
import { USER_EXT_MAX } from './format.js'
import type { CompressionLevel } from './platform/platform.js'

/** When to deflate a payload: see {@link CodecOptions.compress}. */
export type CompressMode = 'auto' | 'always' | 'never'

/** Default of {@link CodecOptions.compress}. */
export const DEFAULT_COMPRESS: CompressMode = 'auto'
/** Default of {@link CodecOptions.level}: chosen by payload size ({@link LEVEL_SMALL}, {@link LEVEL_MEDIUM}, {@link LEVEL_LARGE}). */
export const DEFAULT_LEVEL = 'auto'
/**
 * With `level: 'auto'`, the level for payloads under {@link MEDIUM_PAYLOAD}: there level 6 saves at
 * most ~9% more for up to twice the deflate time on real data (a text-heavy 24 kB post through Redis: 0.24× the
 * pairs per second of JSON at level 6, 0.57–0.65× at level 1), and every write pays it
 * (apps/bench/RESULTS.md, "Compression policy").
 */
export const LEVEL_SMALL: CompressionLevel = 1
/**
 * With `level: 'auto'`, the level from {@link MEDIUM_PAYLOAD} to {@link LARGE_PAYLOAD}: level 6 is
 * 12–14% smaller than level 1 there, inflates no slower, and caches read far more than they write.
 */
export const LEVEL_MEDIUM: CompressionLevel = 6
/** With `level: 'auto'`, the level from {@link LARGE_PAYLOAD} up: there level 6 costs 3–4× level 1's deflate time. */
export const LEVEL_LARGE: CompressionLevel = 1
/** The payload size (bytes of MessagePack) from which `level: 'auto'` deflates at {@link LEVEL_MEDIUM}: 64 KiB. */
export const MEDIUM_PAYLOAD = 64 * 1024
/** The payload size (bytes of MessagePack) from which `level: 'auto'` deflates at {@link LEVEL_LARGE}: 1 MiB. */
export const LARGE_PAYLOAD = 1024 * 1024
/**
 * Default of {@link CodecOptions.compressThreshold} on Node, in bytes of MessagePack: below 1 KiB
 * deflate costs more time than MessagePack itself for a few hundred bytes (apps/bench/RESULTS.md).
 */
export const DEFAULT_COMPRESS_THRESHOLD = 1024
/**
 * Default of {@link CodecOptions.compressThreshold} everywhere else (browsers, workers): deflate
 * there runs in JavaScript, and the native CompressionStream pays from 256 KiB (apps/bench/RESULTS.md).
 */
export const PORTABLE_COMPRESS_THRESHOLD = 256 * 1024
/**
 * Default of {@link CodecOptions.compressThreshold} for a codec with `dictionaries`: a preset
 * dictionary makes even a 100-byte value deflate to about half (apps/bench/RESULTS.md, "Dictionaries").
 */
export const DICTIONARY_COMPRESS_THRESHOLD = 64
/**
 * Default of {@link CodecOptions.minSavings}: jemalloc's size classes (Redis's allocator) are
 * 20–25% apart, so a smaller saving seldom frees any memory, while inflating costs every read.
 */
export const DEFAULT_MIN_SAVINGS = 0.2
/** Default of {@link CodecOptions.maxBytes}: 64 MiB. */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
/** Default of {@link CodecOptions.maxDepth}. */
export const DEFAULT_MAX_DEPTH = 100
/** The largest {@link CodecOptions.maxBytes}: the envelope stores lengths as uint32. */
export const MAX_BYTES_LIMIT = 0xffffffff
/**
 * Default of {@link CodecOptions.maxItems}: 4 Mi array elements and object properties. Room for a
 * million-row table (2.86 Mi for W1-1000000); small envelopes are held to far less by
 * {@link CodecOptions.maxWorkPerByte} (4 Mi empty objects deflated to 4 kB once took ~0.5 s and 140 MB).
 */
export const DEFAULT_MAX_ITEMS = 4 * 1024 * 1024

/**
 * Default of {@link CodecOptions.maxWorkPerByte}: with it, any envelope under 64 KiB decodes in
 * well under 100 ms and 64 MB or is refused (apps/bench/src/hostile-bench.ts), while values
 * that deflate less than ~30:1 in work per byte (nearly all real data) are unaffected.
 */
export const DEFAULT_MAX_WORK_PER_BYTE = 32

/** Options of {@link createCodec}, {@link encode} and {@link decode}. Every field is optional. */
export interface CodecOptions {
  /**
   * When to deflate the MessagePack payload. `'auto'` deflates payloads of at least
   * `compressThreshold` bytes and keeps the result only when it saves at least `minSavings`;
   * `'always'` keeps the deflated form whatever its size (unless it would ask a reader for more work
   * than {@link CodecOptions.maxWorkPerByte} allows); `'never'` stores MessagePack as is.
   * Defaults to `'auto'`.
   */
  readonly compress?: CompressMode
  /**
   * Raw deflate level, 0 (store) to 9 (smallest), or `'auto'`: 1 under 64 KiB of payload, 6 from
   * 64 KiB to 1 MiB, 1 from there up. Defaults to `'auto'` ({@link DEFAULT_LEVEL}).
   */
  readonly level?: CompressionLevel | 'auto'
  /**
   * With `compress: 'auto'`, payloads smaller than this many bytes are not deflated. Defaults to
   * 1024 on Node ({@link DEFAULT_COMPRESS_THRESHOLD}) and 262,144 in browsers and other runtimes
   * ({@link PORTABLE_COMPRESS_THRESHOLD}), or 64 with `dictionaries` ({@link DICTIONARY_COMPRESS_THRESHOLD}).
   */
  readonly compressThreshold?: number
  /** With `compress: 'auto'`, the deflated form is kept only when it is at least this fraction smaller (0 to 1). Defaults to 0.2 ({@link DEFAULT_MIN_SAVINGS}). */
  readonly minSavings?: number
  /**
   * The largest MessagePack payload, uncompressed, that encode writes or decode accepts; decode
   * refuses a larger announced size before inflating anything. At most 2^32 - 1. Defaults to 64 MiB ({@link DEFAULT_MAX_BYTES}).
   */
  readonly maxBytes?: number
  /** How many arrays, objects, Maps, Sets and extensions may nest. Defaults to 100 ({@link DEFAULT_MAX_DEPTH}). */
  readonly maxDepth?: number
  /**
   * The most array elements and object properties one value may hold, counted over the whole
   * value as it is written (a Map or Set counts its entries, RECORDS their columns, not their
   * rows, which {@link CodecOptions.maxWorkPerByte} counts). Decode refuses
   * more before allocating them, so a small compressed envelope cannot make the reader build tens
   * of millions of objects; encode refuses to write what decode would refuse. Lower it for bytes from
   * sources you do not trust. Defaults to 4 Mi
   * ({@link DEFAULT_MAX_ITEMS}).
   */
  readonly maxItems?: number
  /**
   * How much decoding work one stored byte (after the envelope header, deflated or not) may ask
   * for, in units of about one small allocation: every array element and object property costs 1,
   * every array, object, RECORDS row and non-empty string 8, every bin and extension value (but
   * `undefined`) 32, every byte of BIGINT magnitude 1, every 8 payload bytes to inflate 1; an
   * envelope counts as at least 64 KiB (so 2 Mi units by default, some tens of ms). Decode
   * refuses more (LIMIT_EXCEEDED) before doing it, so a small envelope whose payload deflates to
   * millions of objects cannot cost seconds; encode stores a value whose deflated form would pass it
   * uncompressed instead, so what it writes reads back. Raise it only to read envelopes written
   * by earlier versions of Stowage that pass it. Defaults to 32 ({@link DEFAULT_MAX_WORK_PER_BYTE}).
   */
  readonly maxWorkPerByte?: number
  /**
   * Preset deflate dictionaries (see `trainDictionary`): small values that share structure with
   * the dictionary compress far better. The first one is used to write; all of them are used to
   * read, so keep old ones listed while envelopes written with them may still be read. An
   * envelope names its dictionary by id (the dictionary's CRC-32); a reader without it refuses the
   * envelope with UNSUPPORTED_TYPE, and one whose dictionary has that id but other bytes with
   * CHECKSUM_MISMATCH (envelopes of Stowage 0.3 and later carry the payload's CRC-32 to tell).
   * Two dictionaries with one id are refused (INVALID_ARGUMENT). Defaults to none.
   */
  readonly dictionaries?: readonly Uint8Array[]
  /** Your class extensions; see {@link Extension}. Defaults to none. */
  readonly extensions?: readonly Extension[]
  /** An application schema version (uint32) written into every envelope this codec encodes. Defaults to none. */
  readonly schemaVersion?: number
  /**
   * The newest envelope format this codec writes: 4 (a string table for ASCII strings and one for
   * the rest, read by Stowage 0.4 and later; a value whose strings are all ASCII, or mostly not,
   * is still written as 3), 3 (one string table, read by Stowage 0.3 and later), or 2 while readers of Stowage 0.2
   * still share the store (a rolling upgrade). Every codec reads versions 1 to 4 whatever this
   * says. Defaults to 4 ({@link DEFAULT_FORMAT_VERSION}).
   */
  readonly formatVersion?: 2 | 3 | 4
}

/** Default `formatVersion` of a codec. */
export const DEFAULT_FORMAT_VERSION = 4

/**
 * Whether a codec with these options deflates a payload of `length` bytes (then keeps the deflated
 * form only when it pays): what its `encode` does, and what `acceptBytes` keeps a received envelope as.
 */
export function wantsDeflate(options: Pick<Settled, 'compress' | 'compressThreshold'>, length: number): boolean {
  return options.compress === 'always' || (options.compress === 'auto' && length >= options.compressThreshold)
}

/** Options after validation, with defaults filled in. */
export interface Settled {
  readonly compress: CompressMode
  readonly level: CompressionLevel | 'auto'
  readonly compressThreshold: number
  readonly minSavings: number
  readonly maxBytes: number
  readonly maxDepth: number
  readonly maxItems: number
  readonly maxWorkPerByte: number
  readonly extensions: readonly Extension[]
  readonly dictionaries: readonly Uint8Array[]
  readonly schemaVersion: number | undefined
  readonly formatVersion: 2 | 3 | 4
}

const invalid = invalidArgument

function integerIn(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`)
  }
  return value
}

function checkLevel(level: unknown): CompressionLevel {
  if (typeof level !== 'number' || !Number.isInteger(level) || level < 0 || level > 9) throw invalid(`level must be 'auto' or an integer from 0 to 9, got ${String(level)}`)
  return level as CompressionLevel
}

// An option the settled options lack is one the codec does not know (a misspelt `maxdepth`),
// which would otherwise be ignored in silence.
function checkKnown(options: object, settled: Settled): Settled {
  checkOptionNames('codec', options, Object.keys(settled))
  return settled
}

/** The largest preset dictionary deflate can use: its window. */
export const MAX_DICTIONARY_SIZE = 32 * 1024
const MAX_ITEMS_LIMIT = 2 ** 32

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}

function checkExtensions(extensions: unknown): readonly Extension[] {
  if (!Array.isArray(extensions)) throw invalid(`extensions must be an array, got ${describe(extensions)}`)
  const types = new Set<number>()
  extensions.forEach((ext: unknown, i) => {
    if (typeof ext !== 'object' || ext === null) throw invalid(`extensions[${i}] must be an object, got ${describe(ext)}`)
    const { type, class: cls, encode, decode } = ext as Partial<Extension>
    if (typeof type !== 'number' || !Number.isInteger(type) || type < 0 || type > USER_EXT_MAX) {
      throw invalid(`extensions[${i}].type must be an integer from 0 to ${USER_EXT_MAX} (64 to 127 are Stowage's), got ${String(type)}`)
    }
    if (types.has(type)) throw invalid(`extensions[${i}] uses type ${type}, which another extension already uses`)
    for (const [name, fn] of [['class', cls], ['encode', encode], ['decode', decode]] as const) {
      if (typeof fn !== 'function') throw invalid(`extensions[${i}].${name} must be a function, got ${describe(fn)}`)
    }
    // An arrow function is a function but has no prototype: `instanceof` would throw on every value.
    if (typeof (cls as { prototype?: unknown }).prototype !== 'object') throw invalid(`extensions[${i}].class must be a class (a constructor with a prototype)`)
    types.add(type)
  })
  return extensions as readonly Extension[]
}

/**
 * Validates options and fills in defaults.
 * @throws {StowageError} INVALID_ARGUMENT for an unknown option or mode, an out-of-range number or a bad extension.
 */
export function settle(options: CodecOptions | undefined, compressThreshold = DEFAULT_COMPRESS_THRESHOLD): Settled {
  if (options !== undefined && options !== null && typeof options !== 'object') throw invalid(`options must be an object, got ${describe(options)}`)
  const o = options ?? {}
  const compress = o.compress ?? DEFAULT_COMPRESS
  if (compress !== 'auto' && compress !== 'always' && compress !== 'never') {
    throw invalid(`compress must be 'auto', 'always' or 'never', got ${String(compress)}`)
  }
  const minSavings = o.minSavings ?? DEFAULT_MIN_SAVINGS
  if (typeof minSavings !== 'number' || !(minSavings >= 0 && minSavings <= 1)) {
    throw invalid(`minSavings must be a number from 0 to 1, got ${String(minSavings)}`)
  }
  const extensions = checkExtensions(o.extensions ?? [])
  const dictionaries = o.dictionaries ?? []
  // Two with one id: a reader could not tell which one a value needs.
  if (!Array.isArray(dictionaries) || !dictionaries.every((d) => d instanceof Uint8Array && d.length > 0 && d.length <= MAX_DICTIONARY_SIZE) || new Set(dictionaries.map((d) => crc32(d))).size < dictionaries.length) {
    throw invalid(`dictionaries must be an array of non-empty Uint8Arrays of at most ${MAX_DICTIONARY_SIZE} bytes, no two with the same id (CRC-32)`)
  }
  return checkKnown(o, {
    compress,
    level: o.level === undefined || o.level === 'auto' ? DEFAULT_LEVEL : checkLevel(o.level),
    compressThreshold: integerIn('compressThreshold', o.compressThreshold, dictionaries.length > 0 ? DICTIONARY_COMPRESS_THRESHOLD : compressThreshold, 0, MAX_BYTES_LIMIT),
    minSavings,
    maxBytes: integerIn('maxBytes', o.maxBytes, DEFAULT_MAX_BYTES, 1, MAX_BYTES_LIMIT),
    maxDepth: integerIn('maxDepth', o.maxDepth, DEFAULT_MAX_DEPTH, 0, 10_000),
    maxItems: integerIn('maxItems', o.maxItems, DEFAULT_MAX_ITEMS, 0, MAX_ITEMS_LIMIT),
    maxWorkPerByte: integerIn('maxWorkPerByte', o.maxWorkPerByte, DEFAULT_MAX_WORK_PER_BYTE, 1, MAX_ITEMS_LIMIT),
    extensions,
    dictionaries,
    schemaVersion: o.schemaVersion === undefined ? undefined : integerIn('schemaVersion', o.schemaVersion, 0, 0, 0xffffffff),
    formatVersion: integerIn('formatVersion (2, 3 or 4)', o.formatVersion, DEFAULT_FORMAT_VERSION, 2, 4) as 2 | 3 | 4,
  })
}
