// A string table as the decoder reads it (FORMAT.md §2, format 3 and 4): each string of the value
// is the next `length` UTF-16 code units of the table, taken front to back. A large table is
// decoded and kept in pieces: in Chromium one TextDecoder call over a few hundred KiB can cost
// 10–40 times the same bytes decoded 64 KiB at a time (apps/bench/RESULTS.md, "Large string tables
// in Chromium"), and joining the pieces into one string would copy the table once more.
import { strictUtf8 } from './strict-utf8.js'

/** Tables up to this many bytes are decoded in one call; longer ones in pieces of this size. */
export const TABLE_PIECE = 64 * 1024
const NONE: readonly string[] = []

/** Decodes UTF-8 (throwing TypeError where it is not valid) as pieces of at most {@link TABLE_PIECE} bytes. */
function decodePieces(bytes: Uint8Array): string[] {
  if (bytes.length <= TABLE_PIECE) return [strictUtf8.decode(bytes)]
  // A decoder of its own: a piece that throws would leave a streaming decoder holding the first
  // bytes of a sequence, which its next call would read as the start of another input.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  const pieces: string[] = []
  for (let at = 0; at < bytes.length; at += TABLE_PIECE) {
    const end = Math.min(at + TABLE_PIECE, bytes.length)
    // A piece that ends inside a sequence holds its first bytes back for the next one.
    pieces.push(decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length }))
  }
  return pieces
}

/** One decode's string table and how far its strings have taken it. */
export class TableText {
  private pieces: readonly string[] = NONE
  /** The piece the cursor is in, its index and how many code units the pieces before it hold. */
  private piece = ''
  private index = 0
  private base = 0
  private cursor = 0
  /** Code units in the whole table. */
  length = 0

  /** Starts on a table of UTF-8 `bytes`; throws TypeError where they are not valid UTF-8. */
  open(bytes: Uint8Array): void {
    this.start(bytes.length === 0 ? NONE : decodePieces(bytes))
  }

  /** Starts on no table. */
  clear(): void {
    this.start(NONE)
  }

  /** Whether every code unit of the table was taken. */
  get used(): boolean {
    return this.cursor === this.length
  }

  /** The next `length` code units, or undefined when fewer are left. */
  take(length: number): string | undefined {
    const from = this.cursor - this.base
    const to = from + length
    if (to <= this.piece.length) {
      this.cursor += length
      return this.piece.substring(from, to)
    }
    return this.across(length)
  }

  private start(pieces: readonly string[]): void {
    this.pieces = pieces
    this.index = this.base = this.cursor = this.length = 0
    for (const piece of pieces) this.length += piece.length
    this.piece = pieces[0] ?? ''
  }

  // A string that runs past the end of the current piece: its parts, joined.
  private across(length: number): string | undefined {
    if (this.cursor + length > this.length) return undefined
    let text = this.piece.substring(this.cursor - this.base)
    let left = length - text.length
    while (left > 0) {
      this.base += this.piece.length
      this.piece = this.pieces[++this.index] as string
      const part = this.piece.substring(0, left)
      text += part
      left -= part.length
    }
    this.cursor += length
    return text
  }
}
