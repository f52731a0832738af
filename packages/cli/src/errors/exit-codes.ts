import { StowageError, StowageErrorCode } from '@stowage/core'

/** The exit codes of the `stowage` command; the README lists them. */
export const ExitCode = {
  /** Everything asked for was done. */
  OK: 0,
  /** The bytes are not a readable envelope, the input is not what the command takes, or a file could not be read. */
  FAILED: 1,
  /** The command line itself is wrong (unknown option, missing argument). */
  USAGE: 2,
  /** Redis could not be reached, or went away before the command finished. */
  REDIS: 3,
  /** Interrupted (SIGINT, Ctrl-C): what was done so far is reported. 128 + SIGINT's number, as shells do. */
  INTERRUPTED: 130,
} as const

/** One of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** A command line that is wrong in a way the parser cannot see (an argument missing for the source given): `INVALID_ARGUMENT`, exit code 2. */
export class UsageError extends StowageError {
  constructor(message: string) {
    super(StowageErrorCode.INVALID_ARGUMENT, message)
  }
}

/**
 * The exit code for a failure.
 * @param error - anything thrown by a command.
 * @returns {@link ExitCode.USAGE} for a {@link UsageError}, {@link ExitCode.REDIS} for `STORE_ERROR`, else {@link ExitCode.FAILED}.
 */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return ExitCode.USAGE
  return StowageError.isInstance(error) && error.code === StowageErrorCode.STORE_ERROR ? ExitCode.REDIS : ExitCode.FAILED
}
