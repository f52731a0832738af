export { createRedisStore, DEFAULT_CHUNK_SIZE, DEFAULT_COMMAND_TIMEOUT, MANIFEST_MAGIC, type RedisStore, type RedisStoreOptions } from './redis-store.js'
