// @stowage/persist/tanstack-query: what is public, by name.
export { createStowageClientPersister, DEFAULT_CLIENT_KEY, DEFAULT_SEGMENT_BYTES, DEFAULT_THROTTLE_TIME, type StowageClientPersister, type StowageClientPersisterOptions } from './client-persister.js'
export { createStowageQueryPersister, DEFAULT_MAX_AGE, type StowageQueryPersister, type StowageQueryPersisterOptions } from './query-persister.js'
export { createQuerySerializer, createQueryStorage, DEFAULT_QUERY_PREFIX, type QuerySerializer, type QueryStorage, type QueryStorageOptions } from './query-storage.js'
export { DEFAULT_PERSIST_DB_NAME } from '../shared/resolve-store.js'
export { DEFAULT_SLICE_MS } from '../shared/yield-to-main.js'
export { PERSIST_CODEC_OPTIONS, QUERY_CODEC_OPTIONS } from '../shared/resolve-codec.js'
