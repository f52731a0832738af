// @stowage/next: what is public, by name.
export { createCacheHandler, NEXT_CACHE_TAGS_HEADER, type StowageCacheHandler, type StowageCacheHandlerClass } from './cache-handler.js'
export type { NextCacheControl, NextCacheHandlerValue, NextGetContext, NextIncrementalValue, NextSetContext, NextUseCacheEntry } from './next-types.js'
export { DEFAULT_NEXT_NAMESPACE, type NextCacheOptions } from './options.js'
export { createUseCacheHandler, type StowageUseCacheHandler } from './use-cache-handler.js'
