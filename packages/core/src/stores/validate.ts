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

/**
 * Refuses an option that `known` does not name: a misspelt one (`tll`, `nameSpace`) would otherwise
 * be ignored in silence, and its default used. For Store implementations too, so that every store
 * refuses bad options alike.
 * @param what - what the options are of, for the message (`'createCache'`, `'local'`, …).
 * @throws {StowageError} INVALID_ARGUMENT naming the option, and the known one it is nearest to.
 */
export function checkOptionNames(what: string, options: unknown, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) return
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue
    const near = known.find((name) => name.toLowerCase() === key.toLowerCase()) ?? known.find((name) => closeSpelling(name, key))
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `unknown ${what} option ${JSON.stringify(key)}${near === undefined ? '' : ` (did you mean ${near}?)`}`)
  }
}

// Whether two names are at most two edits apart (a letter left out, added, changed or swapped).
function closeSpelling(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  let before = Array.from({ length: y.length + 1 }, (_, j) => j)
  let previous = before
  for (let i = 1; i <= x.length; i++) {
    const row = [i]
    for (let j = 1; j <= y.length; j++) {
      let d = Math.min((before[j] as number) + 1, (row[j - 1] as number) + 1, (before[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d = Math.min(d, (previous[j - 2] as number) + 1)
      row.push(d)
    }
    previous = before
    before = row
  }
  return (before[y.length] as number) <= 2
}
