// Decoding an envelope a person handed the CLI (a file, standard input), with the two failures a
// terminal meets most said as what to do: the newline redis-cli prints after a value (the CRC-32
// then does not match, though no byte was damaged), and an envelope written with a preset
// dictionary the command was not given.
import { createCodec, decode, inspect, StowageError, StowageErrorCode } from '@stowage/core'

/**
 * Decodes `bytes`, with `dictionary` when given.
 * @throws {StowageError} as `decode`; CHECKSUM_MISMATCH saying so when the bytes decode without
 *   their last byte, a newline; UNSUPPORTED_TYPE naming the dictionary and where to get it when one
 *   is needed and none was given.
 */
export function decodeExplained(bytes: Uint8Array, dictionary?: Uint8Array): unknown {
  try {
    return decodeWith(bytes, dictionary)
  } catch (e) {
    throw explained(bytes, dictionary, e)
  }
}

function decodeWith(bytes: Uint8Array, dictionary: Uint8Array | undefined): unknown {
  return dictionary === undefined ? decode(bytes) : createCodec({ dictionaries: [dictionary] }).decode(bytes)
}

function explained(bytes: Uint8Array, dictionary: Uint8Array | undefined, e: unknown): unknown {
  if (!StowageError.isInstance(e)) return e
  if (e.code === StowageErrorCode.CHECKSUM_MISMATCH && bytes.length > 1 && bytes[bytes.length - 1] === 0x0a && decodes(bytes.subarray(0, -1), dictionary)) {
    return new StowageError(
      StowageErrorCode.CHECKSUM_MISMATCH,
      'the envelope is followed by a newline (redis-cli prints one after a value): without it the CRC-32 matches and nothing is damaged. Read the key with stowage inspect redis://… <key>, or drop the newline (… | head -c -1)',
      { cause: e },
    )
  }
  if (e.code === StowageErrorCode.UNSUPPORTED_TYPE && dictionary === undefined) {
    const id = dictionaryOf(bytes)
    if (id !== undefined) {
      return new StowageError(
        StowageErrorCode.UNSUPPORTED_TYPE,
        `the envelope was written with the preset dictionary 0x${id}: give its bytes with --dictionary <file> (stowage train -o writes them), or read the key with stowage inspect redis://… <key>, which takes the dictionary from that Redis`,
        { cause: e },
      )
    }
  }
  return e
}

function decodes(bytes: Uint8Array, dictionary: Uint8Array | undefined): boolean {
  try {
    decodeWith(bytes, dictionary)
    return true
  } catch {
    return false
  }
}

function dictionaryOf(bytes: Uint8Array): string | undefined {
  try {
    return inspect(bytes).dictionaryId?.toString(16).padStart(8, '0')
  } catch {
    return undefined
  }
}
