import { StowageError, StowageErrorCode } from '@stowage/core'
import { safeText } from '../format/safe-text.js'

/**
 * Writes a failure to stderr as one line, `stowage: CODE: message`, never a stack trace, with any
 * control or format character of the message (which may quote stored data) escaped: the code is
 * a `StowageErrorCode` (errors that are not Stowage's are reported as `INVALID_ARGUMENT` or, for
 * Redis, `STORE_ERROR` by the code that catches them).
 * @param error - anything thrown by a command.
 * @returns the code that was printed.
 */
export function reportFailure(error: unknown): string {
  const code = StowageError.isInstance(error) ? error.code : StowageErrorCode.INVALID_ARGUMENT
  const message = safeText(error instanceof Error ? error.message : String(error))
  process.stderr.write(`stowage: ${code}: ${message}\n`)
  return code
}

/**
 * A failure as data, for `--json` output.
 * @param error - anything thrown.
 * @returns `{ code, message }`.
 */
export function failureJson(error: unknown): { code: string; message: string } {
  return {
    code: StowageError.isInstance(error) ? error.code : StowageErrorCode.INVALID_ARGUMENT,
    message: error instanceof Error ? error.message : String(error),
  }
}

/**
 * A StowageError of code `INVALID_ARGUMENT`, for bad input to a command.
 * @param message - what is wrong.
 * @param cause - the underlying error, if any.
 * @returns the error, to throw.
 */
export function invalidInput(message: string, cause?: unknown): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message, { cause })
}
