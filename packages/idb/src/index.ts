export {
  createIdbStore,
  DEFAULT_IDB_SWEEP_INTERVAL,
  DEFAULT_OPEN_TIMEOUT,
  DEFAULT_PERSIST_TIMEOUT,
  type IdbPersistOptions,
  type IdbStore,
  type IdbStoreEvents,
  type IdbStoreOptions,
} from './idb-store.js'
export {
  fetchCached,
  fetchCachedWithInfo,
  STOWAGE_MEDIA_TYPE,
  type FetchCachedOptions,
  type FetchCachedResult,
  type FetchSource,
} from './fetch-cached.js'
