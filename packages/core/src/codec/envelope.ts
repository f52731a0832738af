// The envelope around a MessagePack payload (layout: format.ts and FORMAT.md §1): header, CRC-32,
// payload, deflated or not. This file owns sealing (header + CRC around a payload) and opening
// (header checks, the size limits that stop a decompression bomb before inflating, the CRC).
import { StowageErrorCode } from '../errors/error-codes.js'
import { corrupt, limitExceeded, truncated } from '../errors/make.js'
import { StowageError } from '../errors/stowage-error.js'
import {
  CompressionId,
  CRC_SIZE,
  FIXED_HEADER_SIZE,
  FLAG_FRESH_UNTIL,
  FLAG_SCHEMA_VERSION,
  FLAG_TAGS,
  FLAG_VALIDATOR,
  FORMAT_VERSION,
  KNOWN_FLAGS,
  MAGIC,
  OLDEST_FORMAT_VERSION,
} from './format.js'
import { crc32Range, moveCrc } from './crc32.js'
import { badMagic, notBytes } from './not-an-envelope.js'
import { take } from './pool.js'
import { encodeTagStamp, readTagStamp } from './tag-stamp.js'
import { encodeValidator, readValidator, type HttpValidator } from './validator.js'

/** Metadata an envelope may carry beside its value. */
export interface EnvelopeMeta {
  /** An application schema version, uint32 (see the Cache's `version`). Defaults to none. */
  readonly schemaVersion?: number
  /** Until when the value is fresh, in ms since the epoch (stale-while-revalidate). Defaults to none. */
  readonly freshUntil?: number
  /**
   * Tags of the value, each with the uint32 generation the tag had when it was written (the
   * Cache's `deleteByTag` moves a tag to a new generation): 1 to 255 tags of 1 to 255 UTF-8
   * bytes. Defaults to none.
   */
  readonly tags?: ReadonlyMap<string, number>
}

/** Metadata settled for sealing: the tags and the validator already encoded as their header fields. */
export interface SealMeta {
  readonly schemaVersion?: number
  readonly freshUntil?: number
  readonly stamp?: Uint8Array
  readonly validator?: Uint8Array
}

/** How an envelope's payload is stored. */
export type Compression = 'none' | 'deflate-raw' | 'deflate-raw-dictionary'

/** What an envelope's header says; see {@link inspect}. */
export interface EnvelopeInfo {
  /** The format version: 3 with a string table, 2 without one, 1 for envelopes of Stowage 0.1. */
  readonly formatVersion: number
  /** How the payload is stored. */
  readonly compression: Compression
  /** With `'deflate-raw-dictionary'`: the id (CRC-32) of the preset dictionary the payload needs. */
  readonly dictionaryId: number | undefined
  /**
   * With `'deflate-raw-dictionary'`, when the writer was Stowage 0.3 or later: the CRC-32 of the
   * inflated payload, which tells a wrong dictionary that has the same id from the right one.
   */
  readonly payloadCrc: number | undefined
  /** The schema version written by the encoder, if any. */
  readonly schemaVersion: number | undefined
  /** The fresh-until time written by the encoder, if any (ms since the epoch). */
  readonly freshUntil: number | undefined
  /** The tags and their generations written by the encoder, if any. */
  readonly tags: ReadonlyMap<string, number> | undefined
  /** The HTTP validator a client kept with the envelope ({@link withValidator}), if any. */
  readonly validator: HttpValidator | undefined
  /** Size of the MessagePack payload once inflated. */
  readonly payloadLength: number
  /** Size of the whole envelope, header included. */
  readonly byteLength: number
  /** The CRC-32 the envelope carries (unchecked): with `byteLength`, a cheap strong validator (an HTTP ETag). */
  readonly crc: number
}

/** A parsed header plus where its parts are. */
export interface Header extends EnvelopeInfo {
  /** Header bytes before the CRC. */
  readonly headerLength: number
  /** Byte 2, the compression id. */
  readonly compressionId: number
  /** The validator's header field, as stored. */
  readonly validatorField: Uint8Array | undefined
}

/** CRC-32 (zlib's) of `data[start..end)`, continuing from `crc`. */
export type Crc32 = (data: Uint8Array, start: number, end: number, crc?: number) => number

const TWO_32 = 4294967296
/** Latest representable fresh-until time; Date's own limit. */
export const MAX_TIME = 8.64e15
// Raw deflate expands at most ~1032:1: a larger announced size is a lie, refused before allocating for it.
const MAX_DEFLATE_RATIO = 1032

function writeUint32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24
  out[at + 1] = value >>> 16
  out[at + 2] = value >>> 8
  out[at + 3] = value
}

function readUint32(bytes: Uint8Array, at: number): number {
  return (((bytes[at] as number) << 24) | ((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number)) >>> 0
}

/** Header length, CRC excluded, for the given choices. */
export function headerLength(compression: number, meta: SealMeta): number {
  return (
    FIXED_HEADER_SIZE +
    (meta.schemaVersion === undefined ? 0 : 4) +
    (meta.freshUntil === undefined ? 0 : 8) +
    (meta.stamp === undefined ? 0 : meta.stamp.length) +
    (meta.validator === undefined ? 0 : meta.validator.length) +
    compressionFieldsLength(compression)
  )
}

// Bytes of the fields a compression id adds: the dictionary id (ids 2 and 3), the payload's CRC-32
// (id 3) and the payload length (every id but 0).
function compressionFieldsLength(compression: number): number {
  return (compression === CompressionId.NONE ? 0 : 4) + (compression >= CompressionId.DEFLATE_RAW_DICTIONARY ? 4 : 0) + (compression === CompressionId.DEFLATE_RAW_DICTIONARY_CHECKED ? 4 : 0)
}

// Writes the header (CRC excluded) at `at`; returns its end.
function writeHeader(out: Uint8Array, at: number, version: number, compression: number, payloadLength: number, dictionaryId: number, meta: SealMeta, payloadCrc = 0): number {
  const { schemaVersion, freshUntil, stamp, validator } = meta
  out[at] = MAGIC
  out[at + 1] = version
  out[at + 2] = compression
  out[at + 3] =
    (schemaVersion === undefined ? 0 : FLAG_SCHEMA_VERSION) | (freshUntil === undefined ? 0 : FLAG_FRESH_UNTIL) | (stamp === undefined ? 0 : FLAG_TAGS) | (validator === undefined ? 0 : FLAG_VALIDATOR)
  let p = at + FIXED_HEADER_SIZE
  if (schemaVersion !== undefined) {
    writeUint32(out, p, schemaVersion)
    p += 4
  }
  if (freshUntil !== undefined) {
    writeUint32(out, p, Math.floor(freshUntil / TWO_32))
    writeUint32(out, p + 4, freshUntil >>> 0)
    p += 8
  }
  if (stamp !== undefined) {
    out.set(stamp, p)
    p += stamp.length
  }
  if (validator !== undefined) {
    out.set(validator, p)
    p += validator.length
  }
  if (compression >= CompressionId.DEFLATE_RAW_DICTIONARY) {
    writeUint32(out, p, dictionaryId)
    p += 4
  }
  if (compression === CompressionId.DEFLATE_RAW_DICTIONARY_CHECKED) {
    writeUint32(out, p, payloadCrc)
    p += 4
  }
  if (compression !== CompressionId.NONE) {
    writeUint32(out, p, payloadLength)
    p += 4
  }
  return p
}

/**
 * Seals an uncompressed payload of format `version` that sits at `buf[start..end)`, usually with a
 * header's room before it: the header and CRC are written in front of it and the whole is copied
 * out once. A header longer than that room (a long tag stamp) is written into the copy instead.
 * @returns a new, exact-length envelope (a view into a shared slab when small: see pool.ts).
 */
export function sealPayload(buf: Uint8Array, start: number, end: number, meta: SealMeta, crc32: Crc32, version: number = FORMAT_VERSION): Uint8Array {
  const length = headerLength(CompressionId.NONE, meta)
  const at = start - length - CRC_SIZE
  if (at < 0) {
    const out = take(length + CRC_SIZE + end - start)
    writeHeader(out, 0, version, CompressionId.NONE, 0, 0, meta)
    writeUint32(out, length, crc32(buf, start, end, crc32(out, 0, length)))
    out.set(buf.subarray(start, end), length + CRC_SIZE)
    return out
  }
  writeHeader(buf, at, version, CompressionId.NONE, 0, 0, meta)
  writeUint32(buf, start - CRC_SIZE, crc32(buf, start, end, crc32(buf, at, at + length)))
  const out = take(end - at)
  out.set(buf.subarray(at, end))
  return out
}

/**
 * Seals a deflated payload of format `version` and `payloadLength` bytes; the CRC covers the
 * header and `deflated`. With a dictionary, `payloadCrc` (the inflated payload's CRC-32) is
 * written when given (compression id 3), else not (id 2, as Stowage 0.2 wrote).
 * @returns a new, exact-length envelope (a view into a shared slab when small: see pool.ts).
 */
export function sealDeflated(payloadLength: number, deflated: Uint8Array, dictionaryId: number | undefined, meta: SealMeta, crc32: Crc32, version: number = FORMAT_VERSION, payloadCrc?: number): Uint8Array {
  const compression =
    dictionaryId === undefined ? CompressionId.DEFLATE_RAW : payloadCrc === undefined ? CompressionId.DEFLATE_RAW_DICTIONARY : CompressionId.DEFLATE_RAW_DICTIONARY_CHECKED
  const length = headerLength(compression, meta)
  const out = take(length + CRC_SIZE + deflated.length)
  writeHeader(out, 0, version, compression, payloadLength, dictionaryId ?? 0, meta, payloadCrc)
  writeUint32(out, length, crc32(deflated, 0, deflated.length, crc32(out, 0, length)))
  out.set(deflated, length + CRC_SIZE)
  return out
}

/**
 * Parses an envelope header.
 * @throws {StowageError} INVALID_ARGUMENT when `bytes` is not a Uint8Array; BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT.
 */
export function readHeader(bytes: Uint8Array): Header {
  if (!(bytes instanceof Uint8Array)) throw notBytes(bytes)
  if (bytes.length < 1) throw truncated('the envelope ends inside its header')
  if (bytes[0] !== MAGIC) throw badMagic(bytes)
  if (bytes.length < FIXED_HEADER_SIZE) throw truncated('the envelope ends inside its header')
  const formatVersion = bytes[1] as number
  const compressionId = bytes[2] as number
  const flags = bytes[3] as number
  if (formatVersion < OLDEST_FORMAT_VERSION || formatVersion > FORMAT_VERSION) {
    throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `envelope format version ${formatVersion} is not supported (this build reads ${OLDEST_FORMAT_VERSION} to ${FORMAT_VERSION})`)
  }
  const known = formatVersion === 1 ? CompressionId.DEFLATE_RAW : CompressionId.DEFLATE_RAW_DICTIONARY_CHECKED
  if (compressionId > known) throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `compression id ${compressionId} is not supported`)
  // Tags and validators came with format version 2.
  if ((flags & ~(formatVersion === 1 ? KNOWN_FLAGS & ~(FLAG_TAGS | FLAG_VALIDATOR) : KNOWN_FLAGS)) !== 0) throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `envelope flags 0x${flags.toString(16)} are not supported`)
  const hasSchema = (flags & FLAG_SCHEMA_VERSION) !== 0
  const hasFresh = (flags & FLAG_FRESH_UNTIL) !== 0
  const short = () => truncated('the envelope ends inside its header')
  let p = FIXED_HEADER_SIZE
  let schemaVersion: number | undefined
  if (hasSchema) {
    if (bytes.length < p + 4) throw short()
    schemaVersion = readUint32(bytes, p)
    p += 4
  }
  let freshUntil: number | undefined
  if (hasFresh) {
    if (bytes.length < p + 8) throw short()
    freshUntil = readUint32(bytes, p) * TWO_32 + readUint32(bytes, p + 4)
    if (freshUntil > MAX_TIME) throw corrupt('the fresh-until time is out of range')
    p += 8
  }
  let tags: ReadonlyMap<string, number> | undefined
  if ((flags & FLAG_TAGS) !== 0) {
    const stamp = readTagStamp(bytes, p, bytes.length)
    tags = stamp.tags
    p = stamp.end
  }
  let validator: HttpValidator | undefined
  let validatorField: Uint8Array | undefined
  if ((flags & FLAG_VALIDATOR) !== 0) {
    const read = readValidator(bytes, p, bytes.length)
    validator = read.validator
    validatorField = read.field
    p = read.end
  }
  const length = p + compressionFieldsLength(compressionId)
  if (bytes.length < length + CRC_SIZE) throw short()
  let dictionaryId: number | undefined
  let payloadCrc: number | undefined
  if (compressionId >= CompressionId.DEFLATE_RAW_DICTIONARY) {
    dictionaryId = readUint32(bytes, p)
    p += 4
  }
  if (compressionId === CompressionId.DEFLATE_RAW_DICTIONARY_CHECKED) {
    payloadCrc = readUint32(bytes, p)
    p += 4
  }
  const payloadLength = compressionId === CompressionId.NONE ? bytes.length - length - CRC_SIZE : readUint32(bytes, p)
  return {
    formatVersion,
    compression: compressionId === CompressionId.NONE ? 'none' : compressionId === CompressionId.DEFLATE_RAW ? 'deflate-raw' : 'deflate-raw-dictionary',
    compressionId,
    dictionaryId,
    payloadCrc,
    schemaVersion,
    freshUntil,
    tags,
    validator,
    payloadLength,
    byteLength: bytes.length,
    headerLength: length,
    validatorField,
    crc: readUint32(bytes, length),
  }
}

/**
 * Checks the announced payload size against `maxBytes` before anything is read or inflated.
 * @throws {StowageError} LIMIT_EXCEEDED.
 */
export function checkMaxBytes(header: Header, maxBytes: number): void {
  if (header.payloadLength > maxBytes) {
    throw limitExceeded(`the payload is ${header.payloadLength} bytes, more than maxBytes (${maxBytes})`)
  }
}

/**
 * Checks the announced payload size against what deflate could possibly expand `storedLength`
 * bytes to, before anything is inflated. Called after the CRC-32 (format 2 and later), so that an
 * envelope cut short is CHECKSUM_MISMATCH, not CORRUPT.
 * @throws {StowageError} CORRUPT.
 */
export function checkInflatable(header: Header, storedLength: number): void {
  if (header.compression !== 'none' && header.payloadLength > storedLength * MAX_DEFLATE_RATIO + 64) {
    throw corrupt('the announced payload size is impossible for its compressed size')
  }
}

/**
 * Checks the CRC-32 over the header and `data[start..end)`. Format version 2 covers the payload as
 * stored (so any change to the stored bytes, bytes appended after a deflate stream included,
 * fails before anything is inflated); version 1 covered the inflated payload, so for it `data`
 * must be the inflated payload.
 * @throws {StowageError} CHECKSUM_MISMATCH.
 */
export function checkCrc(bytes: Uint8Array, header: Header, data: Uint8Array, start: number, end: number, crc32: Crc32): void {
  if (crc32(data, start, end, crc32(bytes, 0, header.headerLength)) !== header.crc) {
    throw new StowageError(StowageErrorCode.CHECKSUM_MISMATCH, 'the envelope is damaged, cut short or followed by other bytes: its CRC-32 does not match')
  }
}

/**
 * Reads what an envelope's header says without decoding or checking its payload.
 *
 * @param bytes - an envelope produced by `encode`.
 * @returns format version, compression, dictionary id, schema version, fresh-until time, tags, sizes and the CRC.
 * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT, INVALID_ARGUMENT.
 */
export function inspect(bytes: Uint8Array): EnvelopeInfo {
  const { formatVersion, compression, dictionaryId, payloadCrc, schemaVersion, freshUntil, tags, validator, payloadLength, byteLength, crc } = readHeader(bytes)
  return { formatVersion, compression, dictionaryId, payloadCrc, schemaVersion, freshUntil, tags, validator, payloadLength, byteLength, crc }
}

/**
 * The metadata of a header, as sealing takes it, with `changes` applied.
 * @returns what {@link sealPayload} and {@link sealDeflated} take.
 */
export function headerMeta(header: Header, changes: { readonly tags?: null; readonly validator?: Uint8Array | null } = {}): SealMeta {
  const tags = changes.tags === null ? undefined : header.tags
  const validator = changes.validator === undefined ? header.validatorField : changes.validator ?? undefined
  return { schemaVersion: header.schemaVersion, freshUntil: header.freshUntil, stamp: tags === undefined ? undefined : encodeTagStamp(tags), validator }
}

// The same stored payload under a new header (versions 2 and later: version 1 has neither tags
// nor validators). The new CRC is the old one moved from the old header to the new (moveCrc): the
// payload is not read again, and bytes that were damaged stay damaged, failing the new check as
// they failed the old.
function reseal(bytes: Uint8Array, header: Header, meta: SealMeta): Uint8Array {
  const start = header.headerLength + CRC_SIZE
  const compression = header.compressionId
  const length = headerLength(compression, meta)
  const out = new Uint8Array(length + CRC_SIZE + bytes.length - start)
  writeHeader(out, 0, header.formatVersion, compression, header.payloadLength, header.dictionaryId ?? 0, meta, header.payloadCrc)
  writeUint32(out, length, moveCrc(header.crc, crc32Range(bytes, 0, header.headerLength), crc32Range(out, 0, length), bytes.length - start))
  out.set(bytes.subarray(start), length + CRC_SIZE)
  return out
}

/**
 * The envelope without its tag stamp: the same payload bytes and other metadata, a new CRC. Tags
 * name generations kept in the store that wrote them; an envelope served to another cache (over
 * HTTP, say) leaves them behind. The payload is not read: the new CRC is the old one carried over
 * to the new header, so damaged bytes stay damaged and fail their check when decoded.
 *
 * @param bytes - an envelope.
 * @returns `bytes` itself when it has no tags, else a new envelope.
 * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT, INVALID_ARGUMENT.
 */
export function withoutTags(bytes: Uint8Array): Uint8Array {
  const header = readHeader(bytes)
  if (header.tags === undefined) return bytes
  return reseal(bytes, header, headerMeta(header, { tags: null }))
}

/**
 * The envelope with an HTTP validator (the `ETag` or `Last-Modified` a server sent with it) kept
 * in its header, or without one: the same payload bytes and other metadata, a new CRC. A client
 * that stores an envelope in another form than it came in (inflated, say), or that got it from a
 * server other than Stowage's, keeps the server's validator so that it can still revalidate
 * (If-None-Match / If-Modified-Since). Decoding ignores it. The payload is not read: the new CRC
 * is the old one carried over to the new header, so damaged bytes stay damaged and fail their
 * check when decoded.
 *
 * @param bytes - an envelope.
 * @param validator - `{ kind: 'etag' | 'last-modified', value }`, or `undefined` to drop one.
 * @returns a new envelope (or `bytes` itself when nothing changes).
 * @throws {StowageError} BAD_MAGIC, TRUNCATED, CORRUPT; UNSUPPORTED_VERSION for bytes this build does not read and for a validator given to format version 1, which has no field for one; INVALID_ARGUMENT for a validator that is not 1 to 255 printable ASCII characters.
 */
export function withValidator(bytes: Uint8Array, validator: HttpValidator | undefined): Uint8Array {
  const header = readHeader(bytes)
  if (validator === undefined && header.validator === undefined) return bytes
  const field = validator === undefined ? null : encodeValidator(validator)
  if (header.formatVersion === 1) throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, 'format version 1 has no field for an HTTP validator')
  return reseal(bytes, header, headerMeta(header, { validator: field }))
}
