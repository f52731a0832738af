/**
 * The Stowage wire format, version 4 (full description: FORMAT.md in this package).
 *
 * Envelope, all integers big-endian:
 *
 *   offset  size  field
 *   0       1     MAGIC 0xC1 (the one byte MessagePack never uses)
 *   1       1     format version (4, or 3 when every table string is ASCII, or 2 for values with
 *                 few strings; readers also accept 1)
 *   2       1     compression id: 0 none, 1 raw deflate (RFC 1951), 2 raw deflate with a preset
 *                 dictionary, 3 the same with the inflated payload's CRC-32
 *   3       1     flags: bit 0 = a schema version follows, bit 1 = a fresh-until time follows,
 *                 bit 2 = a tag stamp follows, bit 3 = an HTTP validator follows; bits 4-7
 *                 reserved, must be 0
 *   4       4     schema version, uint32              (only when flag bit 0 is set)
 *   +       8     fresh until, uint64 ms since epoch  (only when flag bit 1 is set)
 *   +       …     tag stamp (tag-stamp.ts)            (only when flag bit 2 is set)
 *   +       …     HTTP validator (validator.ts)       (only when flag bit 3 is set)
 *   +       4     dictionary id, uint32               (only when compression = 2 or 3)
 *   +       4     CRC-32 of the inflated payload      (only when compression = 3)
 *   +       4     uncompressed payload length, uint32 (only when compression != 0)
 *   +       4     CRC-32 (zlib's) of every header byte before it, then of the payload as stored
 *                 (deflated or not; version 1: of the inflated payload)
 *   +       …     payload, deflated when compression != 0: version 1 and 2, one MessagePack value;
 *                 version 3, a MessagePack bin (the string table: the value's strings, UTF-8, one
 *                 after another) then one MessagePack value whose strings are STRING references;
 *                 version 4, two bins (the ASCII table, then the text table: the UTF-8 of the
 *                 strings that are not all ASCII) then the value, whose strings are STRING and
 *                 TEXT references
 *
 * The payload uses MessagePack application extension types: 0..63 belong to users,
 * 64..127 to Stowage (see ExtType).
 */

/** First byte of every envelope. 0xC1 is "never used" in MessagePack, so an envelope is never valid msgpack. */
export const MAGIC = 0xc1
/** The newest format version this build writes and reads. */
export const FORMAT_VERSION = 4
/**
 * The format version written for a value whose table strings are all ASCII (and when asked for):
 * version 4 with one table. Readers of Stowage 0.3 read it.
 */
export const FORMAT_VERSION_3 = 3
/**
 * The format version written for values with few strings (and when asked for): version 3 without
 * the string table. Its bytes are the same as version 3's value part.
 */
export const FORMAT_VERSION_2 = 2
/** The oldest format version this build reads. Version 1 is version 2 without SHAPE, SHAPE_REF and dictionaries. */
export const OLDEST_FORMAT_VERSION = 1
/**
 * A version-3 encoder writes the string table only when the value has at least this many strings
 * (empty strings and keys aside); below it the same value is written as version 2. Two bytes more
 * per string buy one native UTF-8 decode for all of them (apps/bench/RESULTS.md, "Decode and encode in the browser").
 */
export const MIN_TABLE_STRINGS = 32

/** Compression ids of the envelope's byte 2. */
export const CompressionId = {
  NONE: 0,
  DEFLATE_RAW: 1,
  /** Raw deflate whose window starts primed with a preset dictionary, named by the dictionary id field. */
  DEFLATE_RAW_DICTIONARY: 2,
  /**
   * The same, with the CRC-32 of the inflated payload after the dictionary id: two dictionaries
   * can share an id (a CRC-32), and a wrong one inflates to other bytes of the same length that the
   * envelope's CRC (over the stored bytes) cannot tell apart. Stowage 0.3 writes it; 0.2 wrote id 2.
   */
  DEFLATE_RAW_DICTIONARY_CHECKED: 3,
} as const

/** Flag bit: a uint32 schema version follows the fixed header. */
export const FLAG_SCHEMA_VERSION = 0x01
/** Flag bit: a uint64 "fresh until" time (ms since the epoch) follows; used for stale-while-revalidate. */
export const FLAG_FRESH_UNTIL = 0x02
/** Flag bit: a tag stamp follows (the value's tags and their generations; see tag-stamp.ts). */
export const FLAG_TAGS = 0x04
/**
 * Flag bit: an HTTP validator follows (see validator.ts): the ETag or Last-Modified of a server
 * that is not Stowage's, kept with the envelope by a client. Valid with format versions 2 and 3
 * (readers of Stowage 0.2 refuse it at the header, so it needs no new version).
 */
export const FLAG_VALIDATOR = 0x08
/** Flag bits this version understands; any other set bit is refused. */
export const KNOWN_FLAGS = FLAG_SCHEMA_VERSION | FLAG_FRESH_UNTIL | FLAG_TAGS | FLAG_VALIDATOR

/** Size of magic, version, compression id and flags. */
export const FIXED_HEADER_SIZE = 4
/** Size of the CRC-32 field. */
export const CRC_SIZE = 4
/**
 * Room the encoder leaves before a payload for its header, CRC included: fixed part, schema
 * version, fresh-until, dictionary id, length, CRC. A tag stamp makes a header longer (sealPayload
 * copies then).
 */
export const MAX_HEADER_SIZE = FIXED_HEADER_SIZE + 4 + 8 + 4 + 4 + CRC_SIZE

/**
 * MessagePack extension types used by Stowage. User extensions take 0..63
 * ({@link USER_EXT_MAX}); -1 is MessagePack's standard timestamp.
 */
export const ExtType = {
  /** Standard MessagePack timestamp (32, 64 or 96 bit): valid `Date`s. */
  TIMESTAMP: -1,
  /** `undefined`; data is one byte 0x00. */
  UNDEFINED: 64,
  /** `bigint`; data is a sign byte (0 = +, 1 = -) then the magnitude, big-endian, no leading zeros. */
  BIGINT: 65,
  /** An invalid `Date` (`new Date(NaN)`); no data. */
  INVALID_DATE: 66,
  /** `Map`; data is a msgpack array [keys, values], both arrays of equal length. */
  MAP: 67,
  /** `Set`; data is a msgpack array of the members. */
  SET: 68,
  /** Typed array other than Uint8Array; data is a kind byte (TypedArrayKind) then the elements, little-endian. */
  TYPED_ARRAY: 69,
  /** `ArrayBuffer`; data is its bytes. */
  ARRAY_BUFFER: 70,
  /** `DataView`; data is its bytes. */
  DATA_VIEW: 71,
  /** `RegExp`; data is a msgpack array [source, flags]. */
  REGEXP: 72,
  /** An array of same-shaped plain objects; data is [count, keys, column 0, …, column k-1]. */
  RECORDS: 73,
  /** An array of integers stored as differences; data is [first, second - first, …]. */
  DELTA: 74,
  /** A plain object whose values are same-shaped objects; data is [keys, values]. */
  DICT: 75,
  /** A string with lone surrogates (not valid UTF-8); data is its UTF-16 code units, little-endian. */
  UTF16: 76,
  /**
   * First element of a MessagePack array [SHAPE, v0, …, vk-1] that stands for a plain object:
   * data is the msgpack array of its k keys, which become the next shape id (0, 1, … in order of
   * appearance within one payload). Format version 2.
   */
  SHAPE: 77,
  /** First element of an array [SHAPE_REF, v0, …, vk-1]: an object with the keys of an earlier SHAPE; data is the shape id, uint8 or uint16. Format version 2. */
  SHAPE_REF: 78,
  /**
   * A string of the payload's string table (format version 3; in version 4, of its ASCII table):
   * data is its length in UTF-16 code units, uint8, uint16 or uint32 (fixext 1, 2 or 4). Strings
   * are taken from the table in the order their references are read; never an object key.
   */
  STRING: 79,
  /**
   * A string of the payload's text table (format version 4 only): data as STRING's. Strings are
   * taken from the text table in the order their references are read; never an object key.
   */
  TEXT: 80,
} as const

/** Highest extension type a user extension may take. */
export const USER_EXT_MAX = 63

/** Kind byte of ExtType.TYPED_ARRAY. */
export const TypedArrayKind = {
  Int8Array: 1,
  Uint8ClampedArray: 2,
  Int16Array: 3,
  Uint16Array: 4,
  Int32Array: 5,
  Uint32Array: 6,
  Float32Array: 7,
  Float64Array: 8,
  BigInt64Array: 9,
  BigUint64Array: 10,
  Float16Array: 11,
} as const

/** Arrays shorter than this are never written as RECORDS: the extension header would cost more than it saves. */
export const MIN_RECORDS = 2
/** Integer runs shorter than this stay plain arrays rather than DELTA. */
export const MIN_DELTA = 8
/** Shape ids fit in a uint16 (fixext 2); objects past this many shapes in one value are written as maps. */
export const MAX_SHAPES = 0x10000
/** Objects with more keys than this are written as maps: dictionaries keyed by ids, not records. */
export const MAX_SHAPE_KEYS = 128
