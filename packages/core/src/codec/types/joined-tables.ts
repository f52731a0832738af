// The string tables as browsers write them (the portable platform): the strings are kept and
// joined, then written by one call into TextEncoder at the end, which beats one call per string.
// A string that turns out not to be ASCII has its reference's type byte changed to TEXT then: a
// reference keeps its size, so nothing moves, but the references inside an extension whose header
// the encoder shrinks or grows afterwards move with its data (shift()).
import { ExtType } from '../format.js'
import { GrowableBytes } from '../growable-bytes.js'
import type { Platform } from '../platform/platform.js'
import { cutOut, shiftRefs, wantsTextTable, type StringTables, type Tables } from './string-table.js'
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
  // Format 4 only: where each string's reference starts in the encoder's buffer, and where the
  // string ends in the joined strings (kept as they come: reading each string's length again at
  // the end cost more than the whole partition).
  private refs: number[] = []
  private ends: number[] = []
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
    if (this.refs.length > 0) {
      this.refs = []
      this.ends = []
    }
  }

  add(s: string, at: number): void {
    const n = s.length
    this.count++
    this.chars += n
    const last = s.charCodeAt(n - 1)
    if (last >= 0xd800 && last < 0xdc00) this.lone = true
    this.strings.push(s)
    if (this.split) {
      this.refs.push(at)
      this.ends.push(this.chars)
    }
  }

  shift(from: number, delta: number): void {
    shiftRefs(this.refs, from, delta)
  }

  build(buf: Uint8Array): Tables | undefined {
    if (this.lone) return undefined
    const strings = this.strings
    const joined = strings.length === 1 ? (strings[0] as string) : strings.join('')
    if (!isWellFormed(joined)) return undefined
    const all = this.encode(joined)
    // As many bytes as code units: every string is ASCII (the usual case costs nothing more).
    if (!this.split || !wantsTextTable(all.length, joined.length)) return { tables: [all], version: 3 }
    const ascii = this.partition(buf, joined, all)
    return { tables: [all.subarray(0, ascii), this.text.bytes.subarray(0, this.text.pos)], version: 4 }
  }

  trim(): void {
    if (this.strings.length > 0) this.strings.length = 0
    this.joined.trim()
    this.text.trim()
  }

  // `joined`'s UTF-8 (valid until the next value).
  private encode(joined: string): Uint8Array {
    const out = this.joined
    out.pos = 0
    // Three bytes a char would pass maxBytes: encoded on its own.
    if (!out.room(joined.length * 3, this.maxBytes + 64)) return utf8.encode(joined)
    return out.bytes.subarray(0, this.platform.writeUtf8(out.sink, joined, 0))
  }

  // Moves the bytes of the strings that are not ASCII out of `all` (the UTF-8 of `joined`) into the
  // text table, marks their references TEXT in `buf`, and closes up the ASCII strings' bytes in
  // `all`; returns the ASCII table's size. The runs of non-ASCII characters are found by one
  // regular expression over `joined`, the strings they fall in by a binary search of where the
  // strings end, and where they lie in `all` by counting the extra UTF-8 bytes of the runs: only
  // the text strings cost work, and nothing is encoded again (re-encoding the two tables from
  // slices of the joined string, a two-byte string once one emoji is in it, cost 1.2 ms a segment).
  private partition(buf: Uint8Array, joined: string, all: Uint8Array): number {
    const { refs, ends } = this
    const spans: number[] = [] // where blocks of text strings lie in `all`: start, length
    let extraBefore = 0 // the extra UTF-8 bytes of the runs placed so far
    let k = 0 // the first string not yet placed
    NOT_ASCII_RUNS.lastIndex = 0
    let run = NOT_ASCII_RUNS.exec(joined)
    while (run !== null) {
      // The first string that ends past the run's start, from k on.
      let lo = k
      let hi = ends.length - 1
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if ((ends[mid] as number) > run.index) hi = mid
        else lo = mid + 1
      }
      // Strings lo… go to the text table whole, with every run that falls in them or in the
      // strings right after them.
      const from = lo === 0 ? 0 : (ends[lo - 1] as number)
      k = lo
      let to = from
      let extra = 0
      do {
        const runEnd = run.index + (run[0] as string).length
        extra += extraUtf8(run[0] as string)
        while (to < runEnd) {
          buf[(refs[k] as number) + 1] = ExtType.TEXT
          to = ends[k++] as number
        }
        run = NOT_ASCII_RUNS.exec(joined)
      } while (run !== null && k < ends.length && run.index < (ends[k] as number))
      spans.push(from + extraBefore, to - from + extra)
      extraBefore += extra
    }
    return cutOut(all, all.length, spans, this.text)
  }
}

// The UTF-8 bytes of `run` (characters past U+007F, surrogates in pairs) beyond one a code unit.
function extraUtf8(run: string): number {
  let extra = 0
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i)
    extra += c < 0x800 || (c >= 0xd800 && c < 0xe000) ? 1 : 2
  }
  return extra
}
