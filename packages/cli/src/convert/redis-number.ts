// Strings that Redis's own commands read as numbers: INCR, INCRBY and DECR take a signed 64-bit
// integer written plainly (optional '-', no leading zero, no space: Redis's string2ll), and
// INCRBYFLOAT a decimal (strtold, no space around it). Such a value is a counter: as an envelope
// it would make those commands fail, so convert leaves it alone.

const INTEGER = /^-?(?:0|[1-9]\d*)$/
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
/** Redis refuses a float of this many characters or more (MAX_LONG_DOUBLE_CHARS). */
const FLOAT_CHARS = 5 * 1024

/** Which Redis commands count with a value. */
export type RedisNumber = 'integer' | 'float'

/**
 * Whether Redis's counting commands work on a string value as it is: `integer` for INCR, INCRBY
 * and DECR (and INCRBYFLOAT), `float` for INCRBYFLOAT alone. Only JSON numbers are told: other
 * strings Redis reads as numbers (`007`, `0x1A`) are not JSON, and convert refuses them anyway.
 * @param value - the bytes of a string value.
 * @returns the kind, or `undefined` for a value that is not a number to Redis.
 */
export function redisNumber(value: Uint8Array): RedisNumber | undefined {
  if (value.length === 0 || value.length >= FLOAT_CHARS) return undefined
  const first = value[0]!
  if (first !== 0x2d && (first < 0x30 || first > 0x39)) return undefined
  const text = new TextDecoder().decode(value)
  if (INTEGER.test(text) && text !== '-0' && text.length <= 20) {
    const n = BigInt(text)
    if (n >= INT64_MIN && n <= INT64_MAX) return 'integer'
  }
  if (!JSON_NUMBER.test(text)) return undefined
  // Beyond a double (1e400, 1e-400) is left to convert's own check: it stays JSON either way.
  const n = Number(text)
  return Number.isFinite(n) && (n !== 0 || !/[1-9]/.test(text.replace(/[eE].*$/, ''))) ? 'float' : undefined
}
