// Short constructors for the errors the codec throws most, so call sites stay one line.
import { StowageErrorCode } from './error-codes.js'
import { StowageError } from './stowage-error.js'

/** Structurally invalid bytes. */
export function corrupt(message: string, cause?: unknown): StowageError {
  return new StowageError(StowageErrorCode.CORRUPT, message, { cause })
}

/** Bytes that end too early. */
export function truncated(message: string, cause?: unknown): StowageError {
  return new StowageError(StowageErrorCode.TRUNCATED, message, { cause })
}

/** A configured or format limit was passed. */
export function limitExceeded(message: string, cause?: unknown): StowageError {
  return new StowageError(StowageErrorCode.LIMIT_EXCEEDED, message, { cause })
}

/** A bad argument or option. */
export function invalidArgument(message: string, cause?: unknown): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message, { cause })
}

/** A value (or a stored extension type) this codec cannot handle. */
export function unsupportedType(message: string, cause?: unknown): StowageError {
  return new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, message, { cause })
}
