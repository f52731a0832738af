import { createCodec, type Codec, type CodecOptions } from '@stowage/core'

/**
 * A codec from either a codec or its options (settled once, here).
 *
 * @param codec - a {@link Codec}, or {@link CodecOptions} for a new one; defaults to the default codec.
 * @returns a {@link Codec}.
 * @throws {StowageError} INVALID_ARGUMENT for bad codec options.
 */
export function resolveCodec(codec: Codec | CodecOptions | undefined): Codec {
  return codec !== undefined && typeof (codec as Codec).encode === 'function' ? (codec as Codec) : createCodec(codec as CodecOptions | undefined)
}
