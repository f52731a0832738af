// @stowage/persist/zustand: what is public, by name.
export { createStowageStorage, DEFAULT_ZUSTAND_PREFIX, type StowageStorage, type StowageStorageOptions } from './zustand-storage.js'
export { DEFAULT_PERSIST_DB_NAME } from '../shared/resolve-store.js'
export { PERSIST_CODEC_OPTIONS } from '../shared/resolve-codec.js'
