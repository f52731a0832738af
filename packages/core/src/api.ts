import { createCodecWith, type Codec } from './codec.js'
import type { CompressionBackend } from './compression.js'
import type { CodecOptions } from './options.js'

/** The codec functions, bound to one compression backend (see index.ts and node.ts). */
export interface CodecApi {
  createCodec(options?: CodecOptions): Codec
  encode(value: unknown, options?: CodecOptions): Uint8Array
  decode<T = unknown>(bytes: Uint8Array, options?: CodecOptions): T
  encodeAsync(value: unknown, options?: CodecOptions): Promise<Uint8Array>
  decodeAsync<T = unknown>(bytes: Uint8Array, options?: CodecOptions): Promise<T>
}

/** Binds the codec functions to `backend`. The default codec is made on first use. */
export function bindApi(backend: CompressionBackend): CodecApi {
  let fallback: Codec | undefined
  // Callers that pass the same options object each time share one codec (and its buffers).
  const byOptions = new WeakMap<CodecOptions, Codec>()
  function codecFor(options: CodecOptions | undefined): Codec {
    if (options === undefined) return (fallback ??= createCodecWith(backend))
    let codec = byOptions.get(options)
    if (codec === undefined) byOptions.set(options, (codec = createCodecWith(backend, options)))
    return codec
  }
  return {
    createCodec: (options) => createCodecWith(backend, options),
    encode: (value, options) => codecFor(options).encode(value),
    decode: (bytes, options) => codecFor(options).decode(bytes),
    encodeAsync: async (value, options) => codecFor(options).encodeAsync(value),
    decodeAsync: async (bytes, options) => codecFor(options).decodeAsync(bytes),
  }
}
