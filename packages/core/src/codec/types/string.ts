// Strings: MessagePack str (UTF-8) for well-formed strings, ExtType.UTF16 for strings with lone
// surrogates, which have no UTF-8 form (their code units are kept, little-endian).
import { corrupt } from '../../errors/make.js'
import { ExtType } from '../format.js'

const utf8 = new TextEncoder()
const hasWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** True when `s` has no lone surrogate, so it has a UTF-8 form. */
export function isWellFormed(s: string): boolean {
  return hasWellFormed ? (s as string & { isWellFormed(): boolean }).isWellFormed() : !LONE_SURROGATE.test(s)
}

/** Size of the str header for a UTF-8 length. */
export function strHeaderSize(length: number): number {
  return length < 32 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : 5
}

/** Writes a str header for `length` bytes at `at`; returns the position after it. */
export function writeStrHeader(out: Uint8Array, at: number, length: number): number {
  if (length < 32) out[at++] = 0xa0 | length
  else if (length < 0x100) {
    out[at++] = 0xd9
    out[at++] = length
  } else if (length < 0x10000) {
    out[at++] = 0xda
    out[at++] = length >>> 8
    out[at++] = length & 0xff
  } else {
    out[at++] = 0xdb
    out[at++] = length >>> 24
    out[at++] = length >>> 16
    out[at++] = length >>> 8
    out[at++] = length & 0xff
  }
  return at
}

/** The UTF16 extension of a string with lone surrogates, header included. */
export function utf16Bytes(s: string): Uint8Array {
  const length = s.length * 2
  const header = length === 2 || length === 4 || length === 8 || length === 16 ? 2 : length < 0x100 ? 3 : length < 0x10000 ? 4 : 6
  const out = new Uint8Array(header + length)
  const view = new DataView(out.buffer)
  if (header === 2) out[0] = length === 2 ? 0xd5 : length === 4 ? 0xd6 : length === 8 ? 0xd7 : 0xd8
  else if (header === 3) {
    out[0] = 0xc7
    out[1] = length
  } else if (header === 4) {
    out[0] = 0xc8
    view.setUint16(1, length)
  } else {
    out[0] = 0xc9
    view.setUint32(1, length)
  }
  out[header - 1] = ExtType.UTF16
  for (let i = 0; i < s.length; i++) view.setUint16(header + i * 2, s.charCodeAt(i), true)
  return out
}

/** A string as complete MessagePack bytes: str, or UTF16 for lone surrogates. Used for object keys, which are converted once and kept. */
export function encodeKey(s: string): Uint8Array {
  if (!isWellFormed(s)) return utf16Bytes(s)
  const body = utf8.encode(s)
  const out = new Uint8Array(strHeaderSize(body.length) + body.length)
  out.set(body, writeStrHeader(out, 0, body.length))
  return out
}

/**
 * Reads the data of a UTF16 extension: `length` bytes at `at`.
 * @throws {StowageError} CORRUPT for an odd length.
 */
export function readUtf16(bytes: Uint8Array, at: number, length: number): string {
  if (length % 2 !== 0) throw corrupt('bad utf-16 extension')
  const units = new Uint16Array(length / 2)
  for (let i = 0, p = at; i < units.length; i++, p += 2) units[i] = (bytes[p] as number) | ((bytes[p + 1] as number) << 8)
  let s = ''
  for (let i = 0; i < units.length; i += 4096) s += String.fromCharCode.apply(null, units.subarray(i, i + 4096) as unknown as number[])
  return s
}
