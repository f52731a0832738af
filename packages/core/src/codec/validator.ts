// The HTTP validator an envelope may carry (flag bit 3, FORMAT.md §1): the entity tag or
// Last-Modified date a server other than Stowage's sent with the envelope, kept so that a client
// can revalidate against that server (If-None-Match / If-Modified-Since) after it stored the bytes
// in another form (inflated, say). The payload never depends on it.
//
//   kind    uint8: 1 an entity tag (ETag), 2 an HTTP date (Last-Modified)
//   length  uint8, 1 to 255
//   value   the header's value, bytes 0x20 to 0x7E
import { StowageErrorCode } from '../errors/error-codes.js'
import { corrupt, truncated } from '../errors/make.js'
import { StowageError } from '../errors/stowage-error.js'

/** An HTTP validator: the value of an `ETag` or a `Last-Modified` response header. */
export interface HttpValidator {
  readonly kind: 'etag' | 'last-modified'
  /** The header's value as the server sent it (1 to 255 printable ASCII characters). */
  readonly value: string
}

/** Most characters of a validator's value. */
export const MAX_VALIDATOR_LENGTH = 255

const KINDS = ['etag', 'last-modified'] as const

/**
 * The validator as its header field.
 * @throws {StowageError} INVALID_ARGUMENT for another kind, or a value that is not 1 to 255 printable ASCII characters.
 */
export function encodeValidator(validator: HttpValidator): Uint8Array {
  const kind = KINDS.indexOf(validator?.kind) + 1
  const value = validator?.value
  if (kind === 0 || typeof value !== 'string' || value.length < 1 || value.length > MAX_VALIDATOR_LENGTH || !/^[\x20-\x7e]+$/.test(value)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `a validator is { kind: 'etag' | 'last-modified', value: 1 to ${MAX_VALIDATOR_LENGTH} printable ASCII characters }`)
  }
  const out = new Uint8Array(2 + value.length)
  out[0] = kind
  out[1] = value.length
  for (let i = 0; i < value.length; i++) out[2 + i] = value.charCodeAt(i)
  return out
}

/**
 * Reads the validator field at `at` of a header that ends before `limit`.
 * @throws {StowageError} TRUNCATED, CORRUPT.
 */
export function readValidator(bytes: Uint8Array, at: number, limit: number): { validator: HttpValidator; field: Uint8Array; end: number } {
  if (at + 2 > limit) throw truncated('the envelope ends inside its header')
  const kind = KINDS[(bytes[at] as number) - 1]
  const length = bytes[at + 1] as number
  if (kind === undefined || length === 0) throw corrupt('bad validator in the envelope header')
  const end = at + 2 + length
  if (end > limit) throw truncated('the envelope ends inside its header')
  let value = ''
  for (let i = at + 2; i < end; i++) {
    const c = bytes[i] as number
    if (c < 0x20 || c > 0x7e) throw corrupt('bad validator in the envelope header')
    value += String.fromCharCode(c)
  }
  return { validator: { kind, value }, field: bytes.subarray(at, end), end }
}
