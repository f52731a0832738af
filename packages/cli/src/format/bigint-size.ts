// The size of a BigInt without its decimal digits: V8 turns a BigInt into decimal in time that
// grows with the square of its length (a second for the 8 Mibit the codec allows in one value),
// and into hex in linear time. What prints a stored BigInt of more than FULL_BIGINT_BITS bits
// (inspect) shows these facts instead of the digits.

/** BigInts up to this many bits (309 decimal digits) are printed whole. */
export const FULL_BIGINT_BITS = 1024

/** Hex digits shown from the front and from the back of a larger BigInt. */
const HEAD_HEX = 16
const TAIL_HEX = 4

const LOG10_2 = Math.log10(2)

/** What is shown of a BigInt too large to print whole. */
export interface BigintSize {
  /** Bits of the magnitude. */
  readonly bits: number
  /** Decimal digits of the magnitude (exact). */
  readonly digits: number
  /** Its first and last hex digits, with the sign: `-0x1000000000000000…0000`. */
  readonly hex: string
}

/**
 * Decimal digits of a BigInt's magnitude, exact, without writing them: from its bit length and
 * first hex digits, checked against a power of ten when that estimate is near a whole number.
 * @param value - any BigInt.
 * @returns the count of digits (1 for 0).
 */
export function decimalDigits(value: bigint): number {
  const magnitude = value < 0n ? -value : value
  if (magnitude < 1n << BigInt(FULL_BIGINT_BITS)) return magnitude.toString().length
  const hex = magnitude.toString(16)
  const head = parseInt(hex.slice(0, 13), 16) // 52 bits: exact in a double
  const log10 = Math.log10(head) + (hex.length - 13) * 4 * LOG10_2
  const estimate = Math.floor(log10) + 1
  const fraction = log10 - Math.floor(log10)
  // The estimate is off by far less than 1e-6 (double precision over a few million digits); only
  // near a power of ten does it need the exact comparison (a power: milliseconds, not seconds).
  if (fraction > 1e-6 && fraction < 1 - 1e-6) return estimate
  return magnitude >= 10n ** BigInt(estimate - 1) ? (magnitude >= 10n ** BigInt(estimate) ? estimate + 1 : estimate) : estimate - 1
}

/**
 * The size of a BigInt and its first and last hex digits, in time linear in its length.
 * @param value - any BigInt.
 * @returns bits, decimal digits and a hex summary.
 */
export function bigintSize(value: bigint): BigintSize {
  const magnitude = value < 0n ? -value : value
  const hex = magnitude.toString(16)
  const bits = magnitude === 0n ? 0 : (hex.length - 1) * 4 + parseInt(hex[0]!, 16).toString(2).length
  const shown = hex.length <= HEAD_HEX + TAIL_HEX ? hex : `${hex.slice(0, HEAD_HEX)}…${hex.slice(-TAIL_HEX)}`
  return { bits, digits: decimalDigits(value), hex: `${value < 0n ? '-' : ''}0x${shown}` }
}

/**
 * Whether a BigInt is small enough to print whole.
 * @param value - any BigInt.
 * @returns true up to {@link FULL_BIGINT_BITS} bits.
 */
export function printsWhole(value: bigint): boolean {
  return (value < 0n ? -value : value) < 1n << BigInt(FULL_BIGINT_BITS)
}
