// fetchCached lives in @stowage/http, beside the server helpers it speaks with; it is re-exported
// here, where browser code has always found it.
export {
  createIdbStore,
  DEFAULT_IDB_SWEEP_INTERVAL,
  DEFAULT_OPEN_TIMEOUT,
  DEFAULT_PERSIST_TIMEOUT,
  type IdbPersistOptions,
  type IdbStore,
  type IdbStoreOptions,
} from './idb-store.js'
export type { IdbStoreEvents } from './events.js'
export {
  fetchCached,
  fetchCachedWithInfo,
  STOWAGE_MEDIA_TYPE,
  type FetchCachedOptions,
  type FetchCachedResult,
  type FetchSource,
  type HintStorage,
} from '@stowage/http'
