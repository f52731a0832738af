// @stowage/core: what is public, by name. The functions are bound to a platform in functions.ts.
export { createCache, createCodec, decode, decodeAsync, dictionaryId, encode, encodeAsync, loadDictionary, readDictionary, storeDictionary, trainDictionary, withoutTags, withValidator } from './functions.js'
export { DICTIONARY_KEY_PREFIX, dictionaryKey } from './cache/dictionary-book.js'
export { DEFAULT_AUTO_SAMPLES, DEFAULT_AUTO_SIZE, dictionaryPointerKey, type AutoDictionaryOptions } from './cache/dictionary-trainer.js'
export type { Cache } from './cache/cache-api.js'
export { DEFAULT_BREAKER_COOL_DOWN, DEFAULT_BREAKER_FAILURES, DEFAULT_BREAKER_PROBE_TIMEOUT, DEFAULT_BREAKER_WINDOW, type BreakerOptions, type BreakerState } from './cache/breaker.js'
export type { CacheSchemas } from './cache/schemas.js'
export { DEFAULT_LEASE_TIME, type LeaseRelease, type LoadLease } from './cache/lease.js'
export { DEFAULT_LOCAL_MAX_BYTES, DEFAULT_LOCAL_MAX_ENTRIES, DEFAULT_LOCAL_MAX_TAGS, DEFAULT_LOCAL_TTL, type LocalOptions } from './cache/local-tier.js'
export {
  DEFAULT_NAMESPACE,
  type AcceptBytesOptions,
  type Bundle,
  type CacheClaim,
  type CacheEvents,
  type CacheKey,
  type CacheOperation,
  type CacheOptions,
  type CacheSchema,
  type CacheSetOptions,
  type CacheTtlOptions,
  type CacheStats,
  type CacheTier,
  type CacheValue,
  type GetOrSetOptions,
  type MissReason,
  type ReadErrorPolicy,
  type WriteErrorPolicy,
} from './cache/cache-types.js'
export {
  createBroadcastInvalidation,
  decodeInvalidation,
  encodeInvalidation,
  INVALIDATION_CODEC_OPTIONS,
  MAX_KEYS_PER_MESSAGE,
  splitInvalidation,
  type InvalidationChannel,
  type InvalidationMessage,
} from './cache/invalidation.js'
export type { AsyncDecodeOptions, AsyncDeflate, AsyncEncodeOptions, AsyncInflate, Codec, DecodedEnvelope, DecodeOptions, EncodedEnvelope } from './codec/codec.js'
export { inspect, type Compression, type EnvelopeInfo, type EnvelopeMeta } from './codec/envelope.js'
export { MAX_VALIDATOR_LENGTH, type HttpValidator } from './codec/validator.js'
export type { Extension } from './codec/extension.js'
export { ExtType, FORMAT_VERSION, MAGIC, OLDEST_FORMAT_VERSION, USER_EXT_MAX } from './codec/format.js'
export {
  DEFAULT_COMPRESS,
  DEFAULT_COMPRESS_THRESHOLD,
  DICTIONARY_COMPRESS_THRESHOLD,
  DEFAULT_LEVEL,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MAX_WORK_PER_BYTE,
  DEFAULT_MIN_SAVINGS,
  LARGE_PAYLOAD,
  LEVEL_LARGE,
  LEVEL_MEDIUM,
  LEVEL_SMALL,
  MAX_BYTES_LIMIT,
  MAX_DICTIONARY_SIZE,
  MEDIUM_PAYLOAD,
  PORTABLE_COMPRESS_THRESHOLD,
  type CodecOptions,
  type CompressMode,
} from './codec/options.js'
export type { CompressionLevel } from './codec/platform/platform.js'
export { DEFAULT_DICTIONARY_SIZE, type TrainOptions } from './codec/train-dictionary.js'
export { MAX_TAG_BYTES, MAX_TAGS } from './codec/tag-stamp.js'
export { StowageErrorCode } from './errors/error-codes.js'
export { Emitter } from './events/emitter.js'
export { StowageError, type StowageErrorOptions } from './errors/stowage-error.js'
export {
  createMemoryStore,
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_SWEEP_INTERVAL,
  MEMORY_ENTRY_OVERHEAD,
  type MemoryStore,
  type MemoryStoreOptions,
} from './stores/memory-store.js'
export type { Store, StoreEntry, StoreFence, StoreSetOptions } from './stores/store.js'
// For Store implementations: the argument checks every store shares.
export { checkEntry as checkStoreEntry, checkKey as checkStoreKey, MAX_KEY_LENGTH } from './stores/validate.js'
export { checkOptionNames } from './errors/option-names.js'
