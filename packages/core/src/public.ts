// Everything both entries (portable and Node) export besides the functions bound to a backend.
export type { Cache } from './cache.js'
export {
  DEFAULT_LOCAL_TTL,
  DEFAULT_NAMESPACE,
  type Bundle,
  type CacheEvents,
  type CacheKey,
  type CacheOperation,
  type CacheOptions,
  type CacheSchema,
  type CacheSetOptions,
  type CacheStats,
  type CacheValue,
  type GetOrSetOptions,
  type MissReason,
  type ReadErrorPolicy,
  type WriteErrorPolicy,
} from './cache-types.js'
export type { Codec, DecodedEnvelope } from './codec.js'
export type { CompressionLevel } from './compression.js'
export { inspect, type EnvelopeInfo, type EnvelopeMeta } from './envelope.js'
export { StowageErrorCode } from './error-codes.js'
export type { Extension } from './extension.js'
export { ExtType, FORMAT_VERSION, MAGIC, USER_EXT_MAX } from './format.js'
export {
  DEFAULT_COMPRESS,
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_LEVEL,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MIN_SAVINGS,
  MAX_BYTES_LIMIT,
  type CodecOptions,
  type CompressMode,
} from './options.js'
export { StowageError, type StowageErrorOptions } from './stowage-error.js'
export {
  createMemoryStore,
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_SWEEP_INTERVAL,
  MEMORY_ENTRY_OVERHEAD,
  type MemoryStore,
  type MemoryStoreOptions,
} from './memory-store.js'
export type { Store, StoreEntry, StoreSetOptions } from './store.js'
export {
  createBroadcastInvalidation,
  decodeInvalidation,
  encodeInvalidation,
  type InvalidationChannel,
  type InvalidationMessage,
} from './invalidation.js'
// For Store implementations: the argument checks every store shares.
export { checkEntry as checkStoreEntry, checkKey as checkStoreKey } from './validate.js'
