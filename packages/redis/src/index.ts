export { createRedisStore, DEFAULT_CHUNK_SIZE, DEFAULT_COMMAND_TIMEOUT, MANIFEST_MAGIC, type RedisStore, type RedisStoreOptions } from './redis-store.js'
export {
  createRedisInvalidation,
  DEFAULT_INVALIDATION_CHANNEL,
  invalidationChannelFor,
  type RedisInvalidation,
  type RedisInvalidationOptions,
} from './redis-invalidation.js'
export { createRedisLease, DEFAULT_LEASE_PREFIX, type RedisLeaseOptions } from './redis-lease.js'
