import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'

/** The longest key, in UTF-16 code units. */
export const MAX_KEY_LENGTH = 65_536

// String.prototype.isWellFormed (ES2024: Node 20, every current browser) is native; the pattern is
// for older engines (in a `u` pattern a surrogate pair is one code point, so only lone ones match).
const LONE_SURROGATE = /\p{Cs}/u
const wellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text)

/**
 * Checks a key: a string of 1 to {@link MAX_KEY_LENGTH} code units without lone surrogates. A
 * lone surrogate has no UTF-8 form: Redis and IndexedDB would store `a\uD800` and `a\uDFFF` under
 * one key (`a\uFFFD`), so such keys are refused everywhere rather than merged.
 * @throws {StowageError} INVALID_ARGUMENT otherwise.
 */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `a key must be a non-empty string, got ${typeof key === 'string' ? 'an empty string' : typeof key}`)
  }
  if (key.length > MAX_KEY_LENGTH) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `a key is at most ${MAX_KEY_LENGTH} characters, got ${key.length}`)
  if (!wellFormed(key)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'a key must not hold lone surrogates (they have no UTF-8 form, so stores would merge such keys)')
}

/** @throws {StowageError} INVALID_ARGUMENT unless `ttl` is undefined or a positive, finite number of milliseconds. */
export function checkTtl(ttl: unknown, name = 'ttl'): asserts ttl is number | undefined {
  if (ttl !== undefined && !(typeof ttl === 'number' && ttl > 0 && Number.isFinite(ttl))) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `${name} must be a positive number of milliseconds, got ${typeof ttl === 'string' ? `the string ${JSON.stringify(ttl)}` : String(ttl)}`)
  }
}

/** @throws {StowageError} INVALID_ARGUMENT unless `value` is a Uint8Array. */
export function checkBytes(value: unknown): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'a store value must be a Uint8Array')
  }
}

/**
 * Checks one store entry: a non-empty string key, a Uint8Array value, an absent or positive TTL.
 * For Store implementations, so that every store refuses bad input alike.
 * @throws {StowageError} INVALID_ARGUMENT.
 */
export function checkEntry(key: unknown, value: unknown, ttl: unknown): void {
  checkKey(key)
  checkBytes(value)
  checkTtl(ttl)
}

/**
 * `value`, a positive safe integer, or `fallback` when it is undefined (an option such as `local.maxEntries`).
 * @throws {StowageError} INVALID_ARGUMENT naming `name`.
 */
export function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `${name} must be a positive integer, got ${String(value)}`)
  }
  return value
}

