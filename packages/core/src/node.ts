// The Node build (export condition "node"): the same API as index.ts, deflating with native zlib.
// Its bytes and the portable build's are interchangeable.
import { bindApi } from './api.js'
import { createCacheWith, type Cache } from './cache.js'
import type { CacheOptions, CacheSchema } from './cache-types.js'
import type { Codec } from './codec.js'
import { nodeBackend } from './compression-node.js'
import type { CodecOptions } from './options.js'

export * from './public.js'

const api = bindApi(nodeBackend)

/** See the portable {@link createCodec}; this one deflates with native zlib. @throws {StowageError} INVALID_ARGUMENT. */
export const createCodec: (options?: CodecOptions) => Codec = api.createCodec
/** See the portable {@link encode}; this one deflates with native zlib. @throws {StowageError} UNSUPPORTED_TYPE, CYCLE, LIMIT_EXCEEDED, INVALID_ARGUMENT. */
export const encode: (value: unknown, options?: CodecOptions) => Uint8Array = api.encode
/** See the portable {@link decode}; this one inflates with native zlib. @throws {StowageError} as the portable decode. */
export const decode: <T = unknown>(bytes: Uint8Array, options?: CodecOptions) => T = api.decode
/** See the portable {@link encodeAsync}; deflates in zlib's thread pool. @throws {StowageError} as encode, as a rejection. */
export const encodeAsync: (value: unknown, options?: CodecOptions) => Promise<Uint8Array> = api.encodeAsync
/** See the portable {@link decodeAsync}; inflates in zlib's thread pool. @throws {StowageError} as decode, as a rejection. */
export const decodeAsync: <T = unknown>(bytes: Uint8Array, options?: CodecOptions) => Promise<T> = api.decodeAsync
/** See the portable {@link createCache}; its codec deflates with native zlib. @throws {StowageError} INVALID_ARGUMENT. */
export const createCache: <S extends CacheSchema = CacheSchema>(options?: CacheOptions) => Cache<S> = (options) => createCacheWith(api.createCodec, options)
