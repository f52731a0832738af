// How a cache names its entries in the store: `namespace:key`, with `%` and `:` in the key escaped
// (`%25`, `%3A`), so a key can never reach into a child namespace: namespace `a` with key `b:c` is
// `a:b%3Ac`, child namespace `a:b` with key `c` is `a:b:c`, and clearing `a:b:` leaves the first.
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'

// One or more segments of letters, digits, '_', '-' and '.', joined by ':' (a parent and its children).
const NAMESPACE = /^[A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)*$/

/** @throws {StowageError} INVALID_ARGUMENT for a namespace that is not segments joined by `:`. */
export function checkNamespace(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAMESPACE.test(name)) {
    throw new StowageError(
      StowageErrorCode.INVALID_ARGUMENT,
      `a namespace is one or more segments of letters, digits, '_', '-' and '.', joined by ':', got ${JSON.stringify(name)}`,
    )
  }
}

/** The store key of `key` under `prefix` (a namespace followed by `:`). */
export function storeKey(prefix: string, key: string): string {
  if (key.indexOf(':') < 0 && key.indexOf('%') < 0) return prefix + key
  return prefix + key.replaceAll('%', '%25').replaceAll(':', '%3A')
}
