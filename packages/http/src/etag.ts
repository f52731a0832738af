// The ETag of an envelope is computed from the envelope itself: its CRC-32 and its length. Both
// ends can compute it, so a client never has to keep a server's ETag beside the bytes (where the
// two could fall out of step): the stored bytes are the validator.
import { inspect } from '@stowage/core'

/**
 * The strong ETag of an envelope: `"<CRC-32 as 8 hex digits>-<length in hex>"`, from its header.
 * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT for bytes that are not an envelope.
 */
export function envelopeEtag(envelope: Uint8Array): string {
  const { crc, byteLength } = inspect(envelope)
  return `"${crc.toString(16).padStart(8, '0')}-${byteLength.toString(16)}"`
}

/** Whether an `If-None-Match` header names `etag` (or is `*`); weak validators compare weakly, as RFC 9110 says for this header. */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false
  const bare = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim()
    return tag === '*' || tag.replace(/^W\//, '') === bare
  })
}
