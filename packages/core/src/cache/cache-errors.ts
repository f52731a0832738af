// The cache's failures as StowageErrors: a store's, a loader's, and received bytes it cannot use.
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { Opened } from './entry-opener.js'

// Why received bytes cannot be taken in, as the error `acceptBytes` throws.
export function unusable(opened: Exclude<Opened, { entry: unknown }>, version: number): StowageError {
  if ('storeError' in opened) return storeError('acceptBytes', opened.storeError)
  if (StowageError.isInstance(opened.error)) return opened.error
  const why = opened.miss === 'newer-version' ? `a newer schema version than this cache's (${version})` : `an older schema version and this cache has no migrate`
  return new StowageError(StowageErrorCode.UNSUPPORTED_VERSION, `the envelope holds ${why}`)
}

// What a loader threw, as the error event reports it: our own errors (TIMEOUT, a store's) as they
// are, anything else as LOADER_FAILED with the loader's error as the cause, never as a store failure.
export function loaderError(e: unknown): StowageError {
  if (StowageError.isInstance(e)) return e
  return new StowageError(StowageErrorCode.LOADER_FAILED, `the loader failed: ${String((e as Error)?.message ?? e)}`, { cause: e })
}

/** A store's failure during `operation`, as the cache reports it: STORE_ERROR with the failure as the cause. */
export function storeError(operation: string, e: unknown): StowageError {
  if (StowageError.isInstance(e)) return e
  return new StowageError(StowageErrorCode.STORE_ERROR, `the store failed during ${operation}: ${String((e as Error)?.message ?? e)}`, { cause: e })
}
