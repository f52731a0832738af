// @stowage/keyv: what is public, by name.
export { createKeyv, withoutKeyvSerialization, type CreateKeyvOptions } from './create-keyv.js'
export { createKeyvStore, DEFAULT_KEYV_PREFIX, type KeyvStoreOptions, type KeyvStowageStore } from './keyv-store.js'
