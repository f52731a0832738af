// BigInt: ExtType.BIGINT, data = a sign byte (0 positive, 1 negative) then the magnitude,
// big-endian, without leading zero bytes (empty for 0). Both directions work on hexadecimal text,
// which V8 converts in linear time, and the size is bounded so a small input cannot ask for
// seconds of work (FORMAT.md §3).
import { corrupt, limitExceeded } from '../../errors/make.js'

/** The largest magnitude, in bytes, of a BIGINT and of all the BIGINTs of one value together (8 Mibit): both encode and decode refuse more. */
export const MAX_BIGINT_BYTES = 1024 * 1024

const HEX = Array.from({ length: 256 }, (_, b) => (b + 0x100).toString(16).slice(1))

/**
 * The BIGINT extension data of `value`.
 * @throws {StowageError} LIMIT_EXCEEDED past {@link MAX_BIGINT_BYTES}.
 */
export function bigintToData(value: bigint): Uint8Array {
  const negative = value < 0n
  let hex = value === 0n ? '' : (negative ? -value : value).toString(16)
  if (hex.length > MAX_BIGINT_BYTES * 2) throw limitExceeded(`a bigint is larger than ${MAX_BIGINT_BYTES} bytes`)
  if (hex.length & 1) hex = '0' + hex
  const out = new Uint8Array(1 + hex.length / 2)
  out[0] = negative ? 1 : 0
  for (let i = 0, p = 1; i < hex.length; i += 2, p++) out[p] = (nibble(hex.charCodeAt(i)) << 4) | nibble(hex.charCodeAt(i + 1))
  return out
}

function nibble(code: number): number {
  return code <= 0x39 ? code - 0x30 : code - 0x57 // '0'-'9', 'a'-'f'
}

/**
 * Checks the size of BIGINT data (`length` bytes: sign and magnitude) before any of it is read.
 * @throws {StowageError} LIMIT_EXCEEDED past {@link MAX_BIGINT_BYTES} of magnitude.
 */
export function checkBigintSize(length: number): void {
  if (length - 1 > MAX_BIGINT_BYTES) throw limitExceeded(`a bigint is larger than ${MAX_BIGINT_BYTES} bytes`)
}

/**
 * Adds the magnitude of one BIGINT (`length` bytes of data: sign and magnitude) to the total of
 * one value's BIGINTs: the limit is on the total, so that many large BIGINTs in one small envelope
 * cannot add up to seconds of parsing.
 * @returns the new total.
 * @throws {StowageError} LIMIT_EXCEEDED past {@link MAX_BIGINT_BYTES} in all.
 */
export function addBigintBytes(total: number, length: number): number {
  const sum = total + Math.max(0, length - 1)
  if (sum > MAX_BIGINT_BYTES) throw limitExceeded(`the bigints of the value are larger than ${MAX_BIGINT_BYTES} bytes in all`)
  return sum
}

/**
 * Reads BIGINT data: `length` bytes at `at`.
 * @throws {StowageError} CORRUPT for a bad sign byte; LIMIT_EXCEEDED past {@link MAX_BIGINT_BYTES}.
 */
export function readBigint(bytes: Uint8Array, at: number, length: number): bigint {
  checkBigintSize(length)
  if (length < 1) throw corrupt('bad bigint extension')
  const sign = bytes[at]
  if (sign !== 0 && sign !== 1) throw corrupt('bad bigint extension')
  if (length === 1) return 0n
  const parts = new Array<string>(length - 1)
  for (let i = 1; i < length; i++) parts[i - 1] = HEX[bytes[at + i] as number] as string
  const magnitude = BigInt('0x' + parts.join(''))
  return sign === 1 ? -magnitude : magnitude
}
