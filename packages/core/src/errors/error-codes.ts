/**
 * Every `code` a {@link StowageError} can carry. Compare against these constants,
 * not against message text: messages may change, codes are part of the API.
 */
export const StowageErrorCode = {
  /** The bytes do not start with the envelope's magic byte `0xC1`: not a Stowage value. */
  BAD_MAGIC: 'BAD_MAGIC',
  /** The envelope's format version, compression id or flags are newer than this build understands. */
  UNSUPPORTED_VERSION: 'UNSUPPORTED_VERSION',
  /** The bytes end before the envelope or its compressed payload does. */
  TRUNCATED: 'TRUNCATED',
  /** The CRC-32 stored in the envelope does not match its contents: the bytes were damaged. */
  CHECKSUM_MISMATCH: 'CHECKSUM_MISMATCH',
  /** The bytes are structurally invalid (bad MessagePack, bad extension payload, bad deflate stream). */
  CORRUPT: 'CORRUPT',
  /** A configured limit (`maxBytes`, `maxDepth`) was exceeded, or a size the format cannot hold. */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  /** The value holds something that cannot be stored (a function, a symbol, a class without an extension). */
  UNSUPPORTED_TYPE: 'UNSUPPORTED_TYPE',
  /** The value refers to itself. */
  CYCLE: 'CYCLE',
  /** A store failed: connection lost, timeout, quota, or the store was closed. The store's own error is the `cause`. */
  STORE_ERROR: 'STORE_ERROR',
  /** A `getOrSet` loader did not answer within its `hardTimeout` and there was no older value to serve; the loader goes on. */
  TIMEOUT: 'TIMEOUT',
  /** A value read from a store does not pass the schema of its key (a cache's `schemas` option); the message names the first issues. */
  SCHEMA_MISMATCH: 'SCHEMA_MISMATCH',
  /** A cache's `migrate` function threw while upgrading an older entry; its error is the `cause`. */
  MIGRATION_FAILED: 'MIGRATION_FAILED',
  /** An argument or option passed to Stowage is out of range or of the wrong type. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** A `getOrSet` loader threw while an older value answered in its place (stale or grace); its error is the `cause`. */
  LOADER_FAILED: 'LOADER_FAILED',
  /**
   * A write made under a lease was refused because the lease had lapsed and another holder had
   * taken it (a `getOrSet` loader ran past `leaseTime`): the newer holder's value stays. The
   * loader's value still answers its caller.
   */
  LEASE_LOST: 'LEASE_LOST',
  /** This runtime lacks what the call needs (a `BroadcastChannel` in Cloudflare Workers, say). */
  UNSUPPORTED_RUNTIME: 'UNSUPPORTED_RUNTIME',
} as const

/** The union of all error codes; see {@link StowageErrorCode}. */
export type StowageErrorCode = (typeof StowageErrorCode)[keyof typeof StowageErrorCode]
