// The string tables as Node writes them: each string's UTF-8 goes to the table as the encoder
// reaches it (Buffer's writer per string beats joining them first). Where a string is not ASCII,
// where it lies and where its reference is are noted, so that the build can move it to a text
// table (format 4) as the browsers' writer does (joined-tables.ts): both decide alike
// (wantsTextTable) and write the same bytes.
import { limitExceeded } from '../../errors/make.js'
import { ExtType } from '../format.js'
import { GrowableBytes } from '../growable-bytes.js'
import type { Platform } from '../platform/platform.js'
import { cutOut, shiftRefs, wantsTextTable, type StringTables, type Tables } from './string-table.js'
import { isWellFormed } from './string.js'

// Strings this short are written by a plain loop: below it, a call into the runtime's UTF-8 writer
// (~100 ns) costs more than the loop (see the encoder's SHORT_STRING).
const SHORT_STRING = 16

/** {@link StringTables} written string by string. */
export class StreamedTables implements StringTables {
  count = 0
  chars = 0
  private lone = false
  private split = false
  private readonly all: GrowableBytes
  private readonly text: GrowableBytes
  // Format 4 only: for each string that is not ASCII, where its reference starts in the encoder's
  // buffer, and where its UTF-8 starts in `all` and how long it is.
  private refs: number[] = []
  private spans: number[] = []

  constructor(
    private readonly platform: Pick<Platform, 'alloc' | 'writeUtf8'>,
    private readonly maxBytes: number,
  ) {
    this.all = new GrowableBytes(platform)
    this.text = new GrowableBytes(platform)
  }

  reset(split: boolean): void {
    this.split = split
    this.count = this.chars = 0
    this.lone = false
    this.all.pos = 0
    if (this.refs.length > 0) {
      this.refs = []
      this.spans = []
    }
  }

  add(s: string, at: number): void {
    const n = s.length
    this.count++
    this.chars += n
    const all = this.all
    if (!all.room(n * 3, this.maxBytes + 64)) throw this.tooBig()
    const bytes = all.bytes
    const p = all.pos
    if (n < SHORT_STRING) {
      let i = 0
      for (; i < n; i++) {
        const c = s.charCodeAt(i)
        if (c >= 0x80) break
        bytes[p + i] = c
      }
      if (i === n) {
        all.pos = p + n
        return
      }
    }
    const written = this.platform.writeUtf8(all.sink, s, p)
    all.pos = p + written
    if (written !== n) {
      if (!isWellFormed(s)) this.lone = true
      if (this.split) {
        this.refs.push(at)
        this.spans.push(p, written)
      }
    }
  }

  shift(from: number, delta: number): void {
    shiftRefs(this.refs, from, delta)
  }

  build(buf: Uint8Array): Tables | undefined {
    if (this.lone) return undefined
    const all = this.all
    if (!this.split || !wantsTextTable(all.pos, this.chars)) return { tables: [all.bytes.subarray(0, all.pos)], version: 3 }
    // The text strings' bytes move to the text table, the others close up; their references become TEXT.
    for (const at of this.refs) buf[at + 1] = ExtType.TEXT
    const ascii = cutOut(all.bytes, all.pos, this.spans, this.text)
    return { tables: [all.bytes.subarray(0, ascii), this.text.bytes.subarray(0, this.text.pos)], version: 4 }
  }

  trim(): void {
    this.all.trim()
    this.text.trim()
  }

  private tooBig(): Error {
    return limitExceeded(`the value encodes to more than maxBytes (${this.maxBytes} bytes)`)
  }
}
