// @stowage/http: both ends of serving envelopes over HTTP, in one place so they cannot drift.
export { envelopeEtag, matchesEtag } from './etag.js'
export { fetchCached, fetchCachedWithInfo, type FetchCachedOptions, type FetchCachedResult, type FetchSource } from './fetch-cached.js'
export { toJson } from './json.js'
export { STOWAGE_MEDIA_TYPE } from './media-type.js'
export { prefersJson } from './negotiate.js'
export { fromNodeRequest, sendNodeResponse, serveCachedNode, type NodeRequestLike, type NodeResponseLike } from './node.js'
export { DEFAULT_CACHE_CONTROL, envelopeResponse, serveCached, type EnvelopeRequest, type ServeCachedOptions, type ServeOptions } from './serve.js'
