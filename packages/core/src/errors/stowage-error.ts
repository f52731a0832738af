import type { StowageErrorCode } from './error-codes.js'

// A registry symbol, so that an error thrown by one loaded copy of @stowage/core
// is recognised by another (two versions side by side, or its ESM and CJS builds).
const MARKER = Symbol.for('@stowage/core.StowageError')

/** Options accepted by the {@link StowageError} constructor. */
export interface StowageErrorOptions {
  /** The underlying failure, kept as the standard `cause` property. */
  readonly cause?: unknown
}

/**
 * The one error type Stowage throws. Tell failures apart by {@link StowageError.code}.
 *
 * @example
 * try { decode(bytes) } catch (e) {
 *   if (StowageError.isInstance(e) && e.code === StowageErrorCode.CHECKSUM_MISMATCH) { ... }
 * }
 */
export class StowageError extends Error {
  /** A stable, machine-readable code from {@link StowageErrorCode}. */
  readonly code: StowageErrorCode
  private readonly [MARKER] = true

  /**
   * @param code - one of {@link StowageErrorCode}.
   * @param message - a human-readable explanation.
   * @param options - `cause`: the underlying error, if any.
   */
  constructor(code: StowageErrorCode, message: string, options?: StowageErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'StowageError'
    this.code = code
  }

  /**
   * Tells whether `value` is a StowageError, also when it comes from another loaded copy
   * of `@stowage/core` (where `instanceof` would say no).
   *
   * @param value - anything caught.
   * @returns `true` when `value` is a StowageError from any copy of the library.
   */
  static isInstance(value: unknown): value is StowageError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true
  }
}
