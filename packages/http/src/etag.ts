// The ETag of an envelope is a cryptographic hash of the bytes sent, so that nobody who writes
// chosen bytes into a shared value can make a new version that carries an old version's ETag (a
// CRC-32 could be matched with four chosen bytes). A client cannot compute it cheaply, so it keeps
// the server's ETag inside the envelope's header (withValidator in fetch-cached.ts): the stored
// bytes still carry their own validator, never in a second record.
import { sha256 } from '#sha256'

/**
 * The strong ETag of an envelope as `serveCached` and `envelopeResponse` send it:
 * `"s256-<the first 128 bits of the bytes' SHA-256, base64url>"`. Any change to the bytes changes
 * it, and no one can make other bytes with the same ETag short of breaking SHA-256. node:crypto on
 * Node and Bun, WebCrypto (`crypto.subtle`) in Deno, workers and browsers.
 * @throws {TypeError} where the runtime has no `crypto.subtle` (a browser page not served over HTTPS or from localhost).
 */
export async function envelopeEtag(envelope: Uint8Array): Promise<string> {
  const digest = await sha256(envelope)
  let binary = ''
  for (let i = 0; i < 16; i++) binary += String.fromCharCode(digest[i] as number)
  return `"s256-${btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')}"`
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
