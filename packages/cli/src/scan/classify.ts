import { inspect, type EnvelopeInfo } from '@stowage/core'
import { MANIFEST_MAGIC } from '@stowage/redis'

/** Bytes of each string value read by `scan` (GETRANGE 0 PREFIX_BYTES-1): enough for any usual header. */
export const PREFIX_BYTES = 256

/** What a key holds, as `scan` and `convert` tell it. */
export type KeyKind = 'stowage' | 'json' | 'string' | 'other'

/** The kind of a string value, from its first bytes. */
export interface Classified {
  readonly kind: KeyKind
  /** For an envelope whose header fits in the prefix. */
  readonly header?: EnvelopeInfo
  /** A chunk manifest of @stowage/redis (FORMAT.md §6). */
  readonly manifest?: boolean
  /** A chunk of a chunked value (its key names it). */
  readonly chunk?: boolean
}

// @stowage/redis names chunks `<key>:#chunk:<16 hex>:<n>`, with `:` and four characters `@`..`O`
// after it when the key has no hash tag; up to 0.3, `{<tag>}:chunk:<16 hex>:<n>` (FORMAT.md §6).
const CHUNK_KEY = /(?:\}:chunk:[0-9a-f]{16}:\d+|:#chunk:[0-9a-f]{16}:\d+(?::[@A-O]{4})?)$/

/**
 * Whether bytes start with the chunk manifest's magic.
 * @param bytes - a value or its prefix.
 * @returns true for a manifest of @stowage/redis.
 */
export function isManifest(bytes: Uint8Array): boolean {
  return bytes.length >= MANIFEST_MAGIC.length && MANIFEST_MAGIC.every((b, i) => bytes[i] === b)
}

/**
 * Tells a string value's kind from its first bytes: a Stowage envelope (its header reads), a JSON
 * object or array (first non-blank byte `{` or `[`; parsed when the whole value is in `prefix`),
 * or another string.
 * @param key - the key (chunks are known by name).
 * @param prefix - the value's first bytes (at most PREFIX_BYTES).
 * @param length - the value's whole length (STRLEN).
 * @returns the kind, and the header of an envelope.
 */
export function classifyString(key: string, prefix: Uint8Array, length: number): Classified {
  if (CHUNK_KEY.test(key)) return { kind: 'stowage', chunk: true }
  if (prefix[0] === 0xc1) {
    if (length === 40 && isManifest(prefix)) return { kind: 'stowage', manifest: true }
    try {
      const header = inspect(prefix)
      // Uncompressed: the header measured the payload in the prefix only.
      return { kind: 'stowage', header: header.compression === 'none' ? { ...header, payloadLength: header.payloadLength + length - prefix.length, byteLength: length } : { ...header, byteLength: length } }
    } catch {
      return { kind: 'string' }
    }
  }
  let i = 0
  while (i < prefix.length && (prefix[i] === 0x20 || prefix[i] === 0x0a || prefix[i] === 0x0d || prefix[i] === 0x09)) i++
  if (prefix[i] !== 0x7b && prefix[i] !== 0x5b) return { kind: 'string' }
  if (length > prefix.length) return { kind: 'json' }
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(prefix))
    return { kind: 'json' }
  } catch {
    return { kind: 'string' }
  }
}
