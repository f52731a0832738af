// The string tables as Node writes them: each string's UTF-8 goes to its table as the encoder
// reaches it (Buffer's writer per string beats joining them first), so a string is known to be
// ASCII or not at once and its reference is written STRING or TEXT from the start.
import { limitExceeded } from '../../errors/make.js'
import { ExtType } from '../format.js'
import { GrowableBytes } from '../growable-bytes.js'
import type { Platform } from '../platform/platform.js'
import type { StringTables, Tables } from './string-table.js'
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
  private readonly ascii: GrowableBytes
  private readonly text: GrowableBytes

  constructor(
    private readonly platform: Pick<Platform, 'alloc' | 'writeUtf8'>,
    private readonly maxBytes: number,
  ) {
    this.ascii = new GrowableBytes(platform)
    this.text = new GrowableBytes(platform)
  }

  reset(split: boolean): void {
    this.split = split
    this.count = this.chars = 0
    this.lone = false
    this.ascii.pos = this.text.pos = 0
  }

  add(s: string): number {
    const n = s.length
    this.count++
    this.chars += n
    const side = this.ascii
    if (!side.room(n * 3, this.maxBytes + 64)) throw this.tooBig()
    const bytes = side.bytes
    const p = side.pos
    if (n < SHORT_STRING) {
      let i = 0
      for (; i < n; i++) {
        const c = s.charCodeAt(i)
        if (c >= 0x80) break
        bytes[p + i] = c
      }
      if (i === n) {
        side.pos = p + n
        return ExtType.STRING
      }
    }
    const written = this.platform.writeUtf8(side.sink, s, p)
    if (written === n) {
      side.pos = p + n
      return ExtType.STRING
    }
    if (!isWellFormed(s)) this.lone = true
    if (!this.split) {
      side.pos = p + written
      return ExtType.STRING
    }
    const text = this.text
    if (!text.room(written, this.maxBytes + 64)) throw this.tooBig()
    text.bytes.set(bytes.subarray(p, p + written), text.pos)
    text.pos += written
    return ExtType.TEXT
  }

  shift(): void {
    // References are typed as they are written: nothing to find again.
  }

  build(): Tables | undefined {
    if (this.lone) return undefined
    const ascii = this.ascii.bytes.subarray(0, this.ascii.pos)
    return this.text.pos === 0 ? { tables: [ascii], version: 3 } : { tables: [ascii, this.text.bytes.subarray(0, this.text.pos)], version: 4 }
  }

  trim(): void {
    this.ascii.trim()
    this.text.trim()
  }

  private tooBig(): Error {
    return limitExceeded(`the value encodes to more than maxBytes (${this.maxBytes} bytes)`)
  }
}
