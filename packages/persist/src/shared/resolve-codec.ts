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
 * A codec from either a codec or its options (settled once, here).
 *
 * @param codec - a {@link Codec}, or {@link CodecOptions} for a new one; defaults to {@link PERSIST_CODEC_OPTIONS}.
 * @returns a {@link Codec}.
 * @throws {StowageError} INVALID_ARGUMENT for bad codec options.
 */
export function resolveCodec(codec: Codec | CodecOptions | undefined): Codec {
  if (codec !== undefined && typeof (codec as Codec).encode === 'function') return codec as Codec
  return createCodec({ ...PERSIST_CODEC_OPTIONS, ...(codec as CodecOptions | undefined) })
}
