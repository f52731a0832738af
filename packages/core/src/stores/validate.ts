import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'

/** @throws {StowageError} INVALID_ARGUMENT unless `key` is a non-empty string. */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `a key must be a non-empty string, got ${typeof key === 'string' ? 'an empty string' : typeof key}`)
  }
}

/** @throws {StowageError} INVALID_ARGUMENT unless `ttl` is undefined or a positive, finite number of milliseconds. */
export function checkTtl(ttl: unknown, name = 'ttl'): asserts ttl is number | undefined {
  if (ttl !== undefined && !(typeof ttl === 'number' && ttl > 0 && Number.isFinite(ttl))) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `${name} must be a positive number of milliseconds, got ${String(ttl)}`)
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
