// The string table of a format-3 payload (FORMAT.md §2.3): a MessagePack bin holding the UTF-8 of
// every value string, one after another, before the value itself. The value refers to them with
// STRING extensions that carry each string's length in UTF-16 code units, so a reader turns the
// whole table into one string with one native UTF-8 decode and cuts the strings out of it in
// order: no per-string call into a UTF-8 decoder, which is what made decoding slow in browsers.
import type { Platform } from '../platform/platform.js'

const utf8 = new TextEncoder()

/** Size of the bin header for `length` bytes. */
function binHeaderSize(length: number): number {
  return length < 0x100 ? 2 : length < 0x10000 ? 3 : 5
}

function writeBinHeader(out: Uint8Array, at: number, length: number): number {
  if (length < 0x100) {
    out[at] = 0xc4
    out[at + 1] = length
    return at + 2
  }
  if (length < 0x10000) {
    out[at] = 0xc5
    out[at + 1] = length >>> 8
    out[at + 2] = length & 0xff
    return at + 3
  }
  out[at] = 0xc6
  out[at + 1] = length >>> 24
  out[at + 2] = length >>> 16
  out[at + 3] = length >>> 8
  out[at + 4] = length & 0xff
  return at + 5
}

/**
 * Moves the value written at `buf[start..end)` behind a bin of `table` (the string table's UTF-8)
 * and writes that bin at `start`. `buf` must have room for the bin's header and `table` after
 * `end`, and `table` must not lie in that room.
 * @returns the end of the payload.
 */
export function placeStringTable(buf: Uint8Array, start: number, end: number, table: Uint8Array): number {
  const header = binHeaderSize(table.length)
  buf.copyWithin(start + header + table.length, start, end)
  buf.set(table, writeBinHeader(buf, start, table.length))
  return end + header + table.length
}

/**
 * `joined`'s UTF-8, written after `end` of `buf` by the platform's writer (into `sink`, the same
 * memory as the platform allocated it), then copied out: `buf` must have room for
 * `joined.length * 3` bytes after `end`. `joined` must be well-formed (no lone surrogate).
 */
export function writeJoinedTable(buf: Uint8Array, sink: Uint8Array, end: number, joined: string, platform: Platform): Uint8Array {
  const length = platform.writeUtf8(sink, joined, end)
  return buf.slice(end, end + length)
}

/** `joined`'s UTF-8, for a table too large to be written in the encoder's buffer. */
export function encodeTable(joined: string): Uint8Array {
  return utf8.encode(joined)
}
