import { createCodecWith, type Codec } from './codec.js'
import { CodecCache } from './codec-cache.js'
import type { CodecOptions } from './options.js'
import type { Platform } from './platform/platform.js'

/** The codec functions, bound to one platform (see index.ts). */
export interface CodecApi {
  createCodec(options?: CodecOptions): Codec
  encode(value: unknown, options?: CodecOptions): Uint8Array
  decode<T = unknown>(bytes: Uint8Array, options?: CodecOptions): T
  encodeAsync(value: unknown, options?: CodecOptions): Promise<Uint8Array>
  decodeAsync<T = unknown>(bytes: Uint8Array, options?: CodecOptions): Promise<T>
}

/** Binds the codec functions to `platform`. The default codec is made on first use. */
export function bindApi(platform: Platform): CodecApi {
  let fallback: Codec | undefined
  // Calls with equal options share one codec (and its buffers): see codec-cache.ts.
  const codecs = new CodecCache((options) => createCodecWith(platform, options))
  function codecFor(options: CodecOptions | undefined): Codec {
    if (options === undefined) return (fallback ??= createCodecWith(platform))
    if (typeof options !== 'object' || options === null) return createCodecWith(platform, options)
    return codecs.get(options)
  }
  return {
    createCodec: (options) => createCodecWith(platform, options),
    encode: (value, options) => codecFor(options).encode(value),
    decode: (bytes, options) => codecFor(options).decode(bytes),
    encodeAsync: async (value, options) => codecFor(options).encodeAsync(value),
    decodeAsync: async (bytes, options) => codecFor(options).decodeAsync(bytes),
  }
}
