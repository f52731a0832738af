import { createCodec, type Codec, type CodecOptions } from '@stowage/core'

/**
 * The codec options every persister uses unless given a codec: the default codec, but deflating
 * from 1 KiB of MessagePack in browsers too (their default is 256 KiB, where deflate runs in
 * JavaScript). App state is written in the background, in slices, and read back once per page
 * load, so bytes matter more than encode time: on 5,000 GitHub webhook payloads in Chromium this
 * stores 0.20× their JSON bytes against 0.84× undeflated (apps/bench, section "App state persisted").
 */
export const PERSIST_CODEC_OPTIONS: CodecOptions = { compressThreshold: 1024 }

/**
 * The codec options of the per-query persister unless given a codec: the default codec's own (in
 * browsers, deflate from 256 KiB of MessagePack, by the native streams). Its entries are one query
 * each, restored on the main thread as they are first used, thousands at once on a first screen,
 * where inflating each in JavaScript cost more than reading and decoding it: 5,000 small queries
 * restored after a reload in Chromium took 1.3 s deflated against 0.85 s not (apps/bench,
 * "TanStack's per-query persister after a reload").
 */
export const QUERY_CODEC_OPTIONS: CodecOptions = {}

/**
 * A codec from either a codec or its options (settled once, here).
 *
 * @param codec - a {@link Codec}, or {@link CodecOptions} for a new one over `defaults`.
 * @param defaults - the options a codec is made with where `codec` does not say. Defaults to {@link PERSIST_CODEC_OPTIONS}.
 * @returns a {@link Codec}.
 * @throws {StowageError} INVALID_ARGUMENT for bad codec options.
 */
export function resolveCodec(codec: Codec | CodecOptions | undefined, defaults: CodecOptions = PERSIST_CODEC_OPTIONS): Codec {
  if (codec !== undefined && typeof (codec as Codec).encode === 'function') return codec as Codec
  return createCodec({ ...defaults, ...(codec as CodecOptions | undefined) })
}
