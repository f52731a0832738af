import { StowageErrorCode } from './error-codes.js'
import { CompressionId, CRC_SIZE, FIXED_HEADER_SIZE, FLAG_FRESH_UNTIL, FLAG_SCHEMA_VERSION, FORMAT_VERSION, KNOWN_FLAGS, MAGIC } from './format.js'
import { StowageError } from './stowage-error.js'

/** Metadata an envelope may carry beside its value. */
export interface EnvelopeMeta {
  /** An application schema version, uint32 (see the Cache's `version`). Defaults to none. */
  readonly schemaVersion?: number
  /** Until when the value is fresh, in ms since the epoch (stale-while-revalidate). Defaults to none. */
  readonly freshUntil?: number
}

/** What an envelope's header says; see {@link inspect}. */
export interface EnvelopeInfo {
  /** The format version, 1 for everything this build writes. */
  readonly formatVersion: number
  /** How the payload is stored. */
  readonly compression: 'none' | 'deflate-raw'
  /** The schema version written by the encoder, if any. */
  readonly schemaVersion: number | undefined
  /** The fresh-until time written by the encoder, if any (ms since the epoch). */
  readonly freshUntil: number | undefined
  /** Size of the MessagePack payload once inflated. */
  readonly payloadLength: number
  /** Size of the whole envelope, header included. */
  readonly byteLength: number
}

/** A parsed header plus where its parts are. */
export interface Header extends EnvelopeInfo {
  readonly headerLength: number
  readonly crc: number
}

const TWO_32 = 4294967296
/** Latest representable fresh-until time; Date's own limit. */
export const MAX_TIME = 8.64e15

/** Writes `value` as a big-endian uint32 at `at`. */
export function writeUint32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24
  out[at + 1] = value >>> 16
  out[at + 2] = value >>> 8
  out[at + 3] = value
}

function readUint32(bytes: Uint8Array, at: number): number {
  return (((bytes[at] as number) << 24) | ((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number)) >>> 0
}

/** Header length, CRC excluded, for the given choices. */
export function headerLength(compressed: boolean, meta: EnvelopeMeta): number {
  return FIXED_HEADER_SIZE + (meta.schemaVersion === undefined ? 0 : 4) + (meta.freshUntil === undefined ? 0 : 8) + (compressed ? 4 : 0)
}

/** Writes the header (CRC excluded) at the start of `out`; returns its length. */
export function writeHeader(out: Uint8Array, payloadLength: number, compressed: boolean, meta: EnvelopeMeta): number {
  const { schemaVersion, freshUntil } = meta
  out[0] = MAGIC
  out[1] = FORMAT_VERSION
  out[2] = compressed ? CompressionId.DEFLATE_RAW : CompressionId.NONE
  out[3] = (schemaVersion === undefined ? 0 : FLAG_SCHEMA_VERSION) | (freshUntil === undefined ? 0 : FLAG_FRESH_UNTIL)
  let p = FIXED_HEADER_SIZE
  if (schemaVersion !== undefined) {
    writeUint32(out, p, schemaVersion)
    p += 4
  }
  if (freshUntil !== undefined) {
    writeUint32(out, p, Math.floor(freshUntil / TWO_32))
    writeUint32(out, p + 4, freshUntil >>> 0)
    p += 8
  }
  if (compressed) {
    writeUint32(out, p, payloadLength)
    p += 4
  }
  return p
}

function truncated(): StowageError {
  return new StowageError(StowageErrorCode.TRUNCATED, 'the envelope ends inside its header')
}

/**
 * Parses an envelope header.
 * @throws {StowageError} INVALID_ARGUMENT when `bytes` is not a Uint8Array; BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT.
 */
export function readHeader(bytes: Uint8Array): Header {
  if (!(bytes instanceof Uint8Array)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'decode expects a Uint8Array')
  }
  if (bytes.length < 1) throw truncated()
  if (bytes[0] !== MAGIC) {
    throw new StowageError(StowageErrorCode.BAD_MAGIC, 'these bytes are not a Stowage envelope (first byte is not 0xC1)')
  }
  if (bytes.length < FIXED_HEADER_SIZE) throw truncated()
  const formatVersion = bytes[1] as number
  const compressionId = bytes[2] as number
  const flags = bytes[3] as number
  if (formatVersion !== FORMAT_VERSION) {
    throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `envelope format version ${formatVersion} is not supported (this build reads ${FORMAT_VERSION})`)
  }
  if (compressionId !== CompressionId.NONE && compressionId !== CompressionId.DEFLATE_RAW) {
    throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `compression id ${compressionId} is not supported`)
  }
  if ((flags & ~KNOWN_FLAGS) !== 0) {
    throw new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `envelope flags 0x${flags.toString(16)} are not supported`)
  }
  const compressed = compressionId === CompressionId.DEFLATE_RAW
  const hasSchema = (flags & FLAG_SCHEMA_VERSION) !== 0
  const hasFresh = (flags & FLAG_FRESH_UNTIL) !== 0
  const length = FIXED_HEADER_SIZE + (hasSchema ? 4 : 0) + (hasFresh ? 8 : 0) + (compressed ? 4 : 0)
  if (bytes.length < length + CRC_SIZE) throw truncated()
  let p = FIXED_HEADER_SIZE
  const schemaVersion = hasSchema ? readUint32(bytes, p) : undefined
  if (hasSchema) p += 4
  let freshUntil: number | undefined
  if (hasFresh) {
    freshUntil = readUint32(bytes, p) * TWO_32 + readUint32(bytes, p + 4)
    if (freshUntil > MAX_TIME) throw new StowageError(StowageErrorCode.CORRUPT, 'the fresh-until time is out of range')
    p += 8
  }
  const payloadLength = compressed ? readUint32(bytes, p) : bytes.length - length - CRC_SIZE
  return {
    formatVersion,
    compression: compressed ? 'deflate-raw' : 'none',
    schemaVersion,
    freshUntil,
    payloadLength,
    byteLength: bytes.length,
    headerLength: length,
    crc: readUint32(bytes, length),
  }
}

/**
 * Reads what an envelope's header says without decoding or checking its payload.
 *
 * @param bytes - an envelope produced by `encode`.
 * @returns format version, compression, schema version, fresh-until time and sizes.
 * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT, INVALID_ARGUMENT.
 */
export function inspect(bytes: Uint8Array): EnvelopeInfo {
  const { formatVersion, compression, schemaVersion, freshUntil, payloadLength, byteLength } = readHeader(bytes)
  return { formatVersion, compression, schemaVersion, freshUntil, payloadLength, byteLength }
}
