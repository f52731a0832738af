// The string tables as browsers write them (the portable platform): the strings are kept and
// joined, then written by one call into TextEncoder at the end, which beats one call per string.
// A string that turns out not to be ASCII has its reference's type byte changed to TEXT then: a
// reference keeps its size, so nothing moves, but the references inside an extension whose header
// the encoder shrinks or grows afterwards move with its data (shift()).
import { limitExceeded } from '../../errors/make.js'
import { ExtType } from '../format.js'
import { GrowableBytes } from '../growable-bytes.js'
import type { Platform } from '../platform/platform.js'
import type { StringTables, Tables } from './string-table.js'
import { isWellFormed } from './string.js'

// Runs of characters past U+007F (global: found one after the other by exec).
const NOT_ASCII_RUNS = /[^\x00-\x7f]+/g
const utf8 = new TextEncoder()

/** {@link StringTables} that join their strings at the end. */
export class JoinedTables implements StringTables {
  count = 0
  chars = 0
  // A string may end in a lone high surrogate (or pair up with the next one once joined): no tables then.
  private lone = false
  private split = false
  private readonly strings: string[] = []
  // Where each string's reference starts in the encoder's buffer (format 4 only).
  private refs: number[] = []
  private readonly joined: GrowableBytes
  private readonly text: GrowableBytes

  constructor(
    private readonly platform: Pick<Platform, 'alloc' | 'writeUtf8'>,
    private readonly maxBytes: number,
  ) {
    this.joined = new GrowableBytes(platform)
    this.text = new GrowableBytes(platform)
  }

  reset(split: boolean): void {
    this.split = split
    this.count = this.chars = 0
    this.lone = false
    if (this.strings.length > 0) this.strings.length = 0
    if (this.refs.length > 0) this.refs = []
  }

  add(s: string, at: number): number {
    const n = s.length
    this.count++
    this.chars += n
    const last = s.charCodeAt(n - 1)
    if (last >= 0xd800 && last < 0xdc00) this.lone = true
    this.strings.push(s)
    if (this.split) this.refs.push(at)
    return ExtType.STRING
  }

  shift(from: number, delta: number): void {
    const refs = this.refs
    for (let i = refs.length - 1; i >= 0 && (refs[i] as number) >= from; i--) refs[i] = (refs[i] as number) + delta
  }

  build(buf: Uint8Array): Tables | undefined {
    if (this.lone) return undefined
    const strings = this.strings
    const joined = strings.length === 1 ? (strings[0] as string) : strings.join('')
    if (!isWellFormed(joined)) return undefined
    const all = this.encode(joined)
    // As many bytes as code units: every string is ASCII (the usual case costs nothing more).
    if (!this.split || all.length === joined.length) return { tables: [all], version: 3 }
    const ascii = this.splitText(buf, joined, all)
    return { tables: [all.subarray(0, ascii), this.text.bytes.subarray(0, this.text.pos)], version: 4 }
  }

  trim(): void {
    if (this.strings.length > 0) this.strings.length = 0
    this.joined.trim()
    this.text.trim()
  }

  private encode(joined: string): Uint8Array {
    const out = this.joined
    out.pos = 0
    // Three bytes a char would pass maxBytes: encoded on its own.
    if (!out.room(joined.length * 3, this.maxBytes + 64)) return utf8.encode(joined)
    return out.bytes.subarray(0, this.platform.writeUtf8(out.sink, joined, 0))
  }

  // Moves the strings that are not ASCII out of `all` (the UTF-8 of `joined`) into the text table
  // and marks their references TEXT in `buf`; the ASCII strings' bytes close up in `all`. The runs
  // of non-ASCII characters are found by one regular expression over `joined`, walked beside the
  // strings: no call per string but for the text strings themselves. Returns the ASCII table's size.
  private splitText(buf: Uint8Array, joined: string, all: Uint8Array): number {
    const strings = this.strings
    const refs = this.refs
    const text = this.text
    text.pos = 0
    NOT_ASCII_RUNS.lastIndex = 0
    let run = NOT_ASCII_RUNS.exec(joined)
    let runStart = run === null ? Infinity : run.index
    let runEnd = run === null ? Infinity : run.index + (run[0] as string).length
    let chars = 0 // where the string starts in `joined`
    let read = 0 // where it starts in `all`
    let kept = 0 // the ASCII bytes closed up so far
    let asciiFrom = 0 // where the current run of ASCII strings starts in `all`
    for (let k = 0; k < strings.length; k++) {
      const s = strings[k] as string
      const end = chars + s.length
      if (runStart < end) {
        buf[(refs[k] as number) + 1] = ExtType.TEXT
        if (read > asciiFrom) all.copyWithin(kept, asciiFrom, read)
        kept += read - asciiFrom
        if (!text.room(s.length * 3, this.maxBytes + 64)) throw limitExceeded(`the value encodes to more than maxBytes (${this.maxBytes} bytes)`)
        const written = this.platform.writeUtf8(text.sink, s, text.pos)
        text.pos += written
        read += written
        asciiFrom = read
        while (runEnd <= end) {
          run = NOT_ASCII_RUNS.exec(joined)
          runStart = run === null ? Infinity : run.index
          runEnd = run === null ? Infinity : run.index + (run[0] as string).length
        }
        if (runStart < end) runStart = end // a run that goes on into the next string
      } else read += s.length
      chars = end
    }
    if (read > asciiFrom) all.copyWithin(kept, asciiFrom, read)
    return kept + read - asciiFrom
  }
}
