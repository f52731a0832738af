// What a reader is told when it is handed something that is not an envelope: the two ways bytes
// become text on the way through a Redis client, named, instead of a bare BAD_MAGIC.
// - ioredis sends a plain Uint8Array argument as its toString(), so `redis.set(key, bytes)` stores
//   the text "193,2,0,…" (193 is the magic byte 0xC1).
// - Reading a key as a string (ioredis `get`, node-redis without a Buffer type mapping) decodes
//   the bytes as UTF-8: 0xC1 is never valid UTF-8, so the text starts with U+FFFD.
// Only called once a check has failed. Kept short: every byte here is in the browser budget.
import { StowageErrorCode } from '../errors/error-codes.js'
import { invalidArgument } from '../errors/make.js'
import { StowageError } from '../errors/stowage-error.js'

const HOW_TO = '; store the bytes encode returns (a Buffer on Node), read them as bytes (ioredis getBuffer)'

function textCause(text: string): string {
  if (/^\d{1,3}(,\d{1,3}){2}/.test(text)) return `the text ${JSON.stringify(text.slice(0, 16))}…: bytes stored as text, as ioredis stores a plain Uint8Array`
  if (text.charCodeAt(0) === 0xfffd) return 'UTF-8 text: bytes read as a string, which loses them'
  return ''
}

/**
 * The error for a decode input that is not a Uint8Array: a string gets a message that says how
 * bytes become text, anything else its type.
 * @returns an INVALID_ARGUMENT StowageError.
 */
export function notBytes(input: unknown): StowageError {
  if (typeof input === 'string') return invalidArgument(`expected the envelope's bytes, got a string: ${textCause(input) || 'bytes read as text'}${HOW_TO}`)
  return invalidArgument(`expected the envelope's bytes (a Uint8Array), got ${input === null ? 'null' : typeof input === 'object' ? input.constructor?.name : typeof input}`)
}

/**
 * The error for bytes whose first byte is not the magic byte: when they are text, the message
 * says which text and how it came to be stored.
 * @returns a BAD_MAGIC StowageError.
 */
export function badMagic(bytes: Uint8Array): StowageError {
  // U+FFFD as UTF-8 is EF BF BD.
  const cause = bytes[0] === 0xef && bytes[1] === 0xbf && bytes[2] === 0xbd ? textCause('\ufffd') : textCause(String.fromCharCode(...bytes.subarray(0, 16)))
  return new StowageError(StowageErrorCode.BAD_MAGIC, `these bytes are not a Stowage envelope (first byte is not 0xC1)${cause && `: they are ${cause}${HOW_TO}`}`)
}
