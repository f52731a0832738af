// The string tables of format 3 and 4 payloads (FORMAT.md §2.1): MessagePack bins holding the UTF-8
// of the value's strings, one after another, before the value itself. The value refers to them
// with STRING (and, in format 4, TEXT) extensions that carry each string's length in UTF-16 code
// units, so a reader turns a whole table into one string with one native UTF-8 decode and cuts the
// strings out of it in order: no per-string call into a UTF-8 decoder, which is what made decoding
// slow in browsers.
//
// Format 4 keeps the strings that are not all ASCII in a table of their own (the text table),
// behind the ASCII table. One emoji in a format-3 table made the whole table a two-byte string in
// V8 and SpiderMonkey, so every string of the value took twice the memory and the table's decode
// ran at a fraction of the ASCII speed: in a new Chromium 156 page, 5,000 small queries in 38
// segments, one query in 90 holding an emoji, decoded in 84–110 ms as format 4 against 111–125 ms
// as format 3 (apps/bench/RESULTS.md, "Codec v4"). A value whose strings are mostly text keeps one
// table (wantsTextTable).
//
// Each platform writes the tables its own way (joined-tables.ts in browsers, streamed-tables.ts on
// Node); the bytes are the same.
import { GrowableBytes } from '../growable-bytes.js'

/**
 * Whether a value whose table strings take `bytes` of UTF-8 for `chars` UTF-16 code units gets a
 * text table (format 4): when its strings are mostly ASCII, the few others (an emoji, a curly
 * quote) no longer make the whole table a two-byte string. Where the UTF-8 has more than one
 * extra byte in 16 over one a code unit (emojibase's 9.7%, world-countries' 18%), most strings
 * are text anyway: format 4 decoded them 0–15% faster in Chromium and Firefox but cost 35–70%
 * more to encode there (cutting out thousands of text strings), so they stay in one table.
 * Both platforms decide alike, so they write the same bytes.
 */
export function wantsTextTable(bytes: number, chars: number): boolean {
  return bytes !== chars && (bytes - chars) * 16 <= bytes
}

/** The tables a value's strings made, and the format version they call for. */
export interface Tables {
  /** Format 3: the one table; format 4: the ASCII table, then the text table. */
  readonly tables: readonly Uint8Array[]
  readonly version: 3 | 4
}

/** Collects the table strings of one value as the encoder writes their references, and builds the tables. */
export interface StringTables {
  /** Table strings of the value so far (empty strings aside), and their UTF-16 code units. */
  readonly count: number
  readonly chars: number
  /** Starts a value; `split`: strings that are not ASCII go to a text table (format 4). */
  reset(split: boolean): void
  /**
   * Adds the next table string (not empty), whose reference the encoder writes at `at` as a
   * STRING; build() makes it TEXT when the string goes to the text table.
   * @throws {StowageError} LIMIT_EXCEEDED when the tables would pass maxBytes.
   */
  add(s: string, at: number): void
  /** The references written from `from` on moved by `delta` bytes (an extension's header shrank or grew). */
  shift(from: number, delta: number): void
  /**
   * The tables of the value, the references of text strings in `buf` made TEXT; `undefined` when a string has a lone surrogate (the value is then written
   * without tables). The tables stay valid until the next value.
   */
  build(buf: Uint8Array): Tables | undefined
  /** Drops buffers grown for one huge value. */
  trim(): void
}

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

/** Bytes the bins of `tables` take, headers included. */
export function tablesSize(tables: readonly Uint8Array[]): number {
  let n = 0
  for (const t of tables) n += binHeaderSize(t.length) + t.length
  return n
}

/**
 * Moves the value written at `buf[start..end)` behind one bin per table and writes those bins at
 * `start`. `buf` must have room for {@link tablesSize} more bytes after `end`, and no table may lie
 * in `buf`.
 * @returns the end of the payload.
 */
export function placeStringTables(buf: Uint8Array, start: number, end: number, tables: readonly Uint8Array[]): number {
  const size = tablesSize(tables)
  buf.copyWithin(start + size, start, end)
  let at = start
  for (const t of tables) {
    at = writeBinHeader(buf, at, t.length)
    buf.set(t, at)
    at += t.length
  }
  return end + size
}

/** Moves the references noted at or after `from` by `delta` bytes (an extension's header shrank or grew). */
export function shiftRefs(refs: number[], from: number, delta: number): void {
  for (let i = refs.length - 1; i >= 0 && (refs[i] as number) >= from; i--) refs[i] = (refs[i] as number) + delta
}

/**
 * Moves the byte ranges `spans` (start and length pairs, in order) of `all[0, length)` to the text
 * table `text` (emptied first), and closes up the bytes between them at the start of `all`.
 * @returns how many bytes stay in `all`: the ASCII table's size.
 */
export function cutOut(all: Uint8Array, length: number, spans: readonly number[], text: GrowableBytes): number {
  text.pos = 0
  text.room(length, Infinity) // no more than `all` holds, which was within maxBytes
  let write = 0
  let read = 0
  for (let i = 0; i < spans.length; i += 2) {
    const start = spans[i] as number
    const size = spans[i + 1] as number
    if (start > read) all.copyWithin(write, read, start)
    write += start - read
    text.bytes.set(all.subarray(start, start + size), text.pos)
    text.pos += size
    read = start + size
  }
  if (length > read) all.copyWithin(write, read, length)
  return write + length - read
}
