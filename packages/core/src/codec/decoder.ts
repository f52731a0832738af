// Reads one MessagePack value with Stowage's extensions (FORMAT.md §2). Every length is checked
// against the bytes that remain before anything is allocated, nesting is bounded by maxDepth and
// the number of array elements and map entries by maxItems, and all the work by a budget that the
// stored size of the input sets (work.ts), so hostile input ends in a StowageError, never a hang,
// a stack overflow or an out-of-memory abort.
import { corrupt, limitExceeded, truncated, unsupportedType } from '../errors/make.js'
import type { Extension } from './extension.js'
import { ExtType } from './format.js'
import type { ColumnPool } from './column-pool.js'
import { KeyCache, MAX_CACHED_KEY } from './key-cache.js'
import type { Platform } from './platform/platform.js'
import { strictUtf8 } from './strict-utf8.js'
import { TableText } from './table-text.js'
import { define, knownShape, MAX_COMPILES_PER_DECODE, shapeFor, type CompileAllowance, type Shape, type ValueSource } from './shape-book.js'
import { addBigintBytes, checkBigintSize, readBigint } from './types/bigint.js'
import { mapFromData, regexpFromData, setFromData } from './types/collections.js'
import { deepFreeze } from './deep-freeze.js'
import { dictFromData, fromDeltas } from './types/records.js'
import { readUtf16 } from './types/string.js'
import { readTimestamp } from './types/timestamp.js'
import { readTypedArray } from './types/typed-array.js'
import { BIGINT_BYTE_WORK, EXTENSION_WORK, ITEM_WORK, KEY_LIST_WORK, OBJECT_WORK, payloadWork, workBudget } from './work.js'

/** Settings a {@link Decoder} needs; validated by the codec before they get here. */
export interface DecoderSettings {
  readonly maxDepth: number
  readonly maxItems: number
  readonly maxWorkPerByte: number
  readonly extensions: readonly Extension[]
}

const EMPTY = new Uint8Array(0)
// Floats are read through these 8 bytes (in the machine's byte order) rather than a DataView per
// payload: making a view costs more than decoding a small value's numbers.
const SCRATCH = new Uint8Array(8)
const SCRATCH_F32 = new Float32Array(SCRATCH.buffer, 0, 1)
const SCRATCH_F64 = new Float64Array(SCRATCH.buffer)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const EMPTY_WORDS = new Int32Array(0)
const TWO_32 = 4294967296
// ASCII strings are cut out of one byte-per-char conversion of a window of the payload: a substring
// costs a fraction of a call into a UTF-8 decoder per string. A kept string may hold on to its
// window (V8 shares the characters of substrings of 13+ chars), so windows stay small.
const WINDOW = 8192
// Strings from this length up are checked for ASCII four bytes at a time (through an Int32Array
// view of the payload, made once per payload); shorter ones byte by byte.
const WORDWISE = 48
// RECORDS of fewer rows read their columns into new arrays even on Node: a store into an array the
// pool keeps (in the old generation) passes V8's write barrier, which costs more than a small
// young array that dies in the next scavenge. Measured in apps/bench/RESULTS.md ("Where the read
// path spends and allocates at N = 10,000").
const POOLED_FROM = 4096

/** Decodes payloads; one instance is reused across calls, so it is not re-entrant (the codec makes another for a nested call). */
export class Decoder implements ValueSource {
  private bytes: Uint8Array = EMPTY
  private dataView: DataView | undefined
  // The payload as 32-bit words from its first 4-byte-aligned byte (`wordsFrom`), to check four
  // bytes at a time that a string is ASCII.
  private words: Int32Array = new Int32Array(0)
  private wordsFrom = 0
  private pos = 0
  private end = 0
  private depth = 0
  private items = 0
  // Work done so far (work.ts) and the most the input allows; magnitude bytes of the BIGINTs so far.
  private work = 0
  private budget = 0
  private bigintBytes = 0
  private readonly compiles: CompileAllowance = { left: 0 }
  private window = ''
  private windowStart = 0
  private windowEnd = 0
  // Formats 3 and 4: the payload's string table (format 4: its ASCII table), read front to back by
  // STRING references; format 4: its text table, read by TEXT references.
  private readonly table = new TableText()
  private tabled = false
  private readonly textTable = new TableText()
  private texted = false
  private readonly shapes: Shape[] = []
  // Large RECORDS columns are read into arrays kept across decodes, one per column and nesting
  // level, where the platform keeps them (Node); elsewhere into new arrays.
  private readonly columns: ColumnPool | undefined
  private level = 0
  private readonly keys = new KeyCache()
  private readonly extensions = new Map<number, Extension>()
  // Reading a prefix (scan): an extension may run past the bytes at hand.
  private prefix = false
  // The value is built frozen (DecodeOptions.freeze): each array and plain object as it is made.
  private freeze = false
  private busy = false

  constructor(
    private readonly settings: DecoderSettings,
    private readonly platform: Platform,
  ) {
    for (const ext of settings.extensions) this.extensions.set(ext.type, ext)
    this.columns = platform.columnPool?.()
  }

  /**
   * Reads the start of a payload (a prefix of it, inflated on its own) and throws what decoding
   * the whole would throw there: counts past maxItems, nesting past maxDepth, BIGINTs too large,
   * bad bytes, more work than the whole input allows. The end of the prefix is not an error.
   * @param storedBytes - the size of the whole payload as stored, which sets the work budget.
   * @param payloadLength - the size of the whole payload, inflated.
   * @throws {StowageError} CORRUPT, LIMIT_EXCEEDED, UNSUPPORTED_TYPE.
   */
  scan(prefix: Uint8Array, version: number, storedBytes: number, payloadLength: number): void {
    if (this.busy) return new Decoder(this.settings, this.platform).scan(prefix, version, storedBytes, payloadLength)
    this.prefix = true
    try {
      this.decode(prefix, 0, version, storedBytes, payloadLength, false)
    } catch (e) {
      if ((e as { code?: string }).code !== 'TRUNCATED') throw e
    } finally {
      this.prefix = false
    }
  }

  /**
   * Decodes the payload of format `version` that `bytes[start..]` must hold entirely: one value,
   * after its string table in format 3. A call made during another (an extension whose decode
   * calls the codec again) gets a decoder of its own.
   * @param storedBytes - the size of the payload as stored (deflated or not), which sets the work budget.
   * @param payloadLength - the size of the payload, inflated (`input.length - start`, unless scanning a prefix).
   * @param freeze - build the value deep-frozen, as deep-freeze.ts freezes one.
   * @throws {StowageError} CORRUPT, TRUNCATED, LIMIT_EXCEEDED, UNSUPPORTED_TYPE.
   */
  decode(input: Uint8Array, start: number, version: number, storedBytes: number, payloadLength = input.length - start, freeze = false): unknown {
    if (this.busy) return new Decoder(this.settings, this.platform).decode(input, start, version, storedBytes, payloadLength, freeze)
    this.busy = true
    this.freeze = freeze
    try {
      this.work = this.bigintBytes = 0
      this.budget = workBudget(storedBytes, this.settings.maxWorkPerByte)
      this.compiles.left = MAX_COMPILES_PER_DECODE
      this.spend(payloadWork(payloadLength))
      return this.decodeAll(input, start, version)
    } finally {
      this.busy = false
    }
  }

  private decodeAll(input: Uint8Array, start: number, version: number): unknown {
    // A Node Buffer's slice() shares memory: read through a plain Uint8Array so bin values are copies.
    const bytes = input.constructor === Uint8Array ? input : new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
    this.bytes = bytes
    this.dataView = undefined // made on first use: small values often need none
    this.words = EMPTY_WORDS // made on the first long string, so small values do not pay for it
    this.pos = start
    this.end = bytes.length
    this.depth = 0
    this.items = 0
    this.windowStart = this.windowEnd = 0
    this.level = 0
    this.tabled = version >= 3
    this.texted = version >= 4
    try {
      if (this.tabled) this.readTable(this.table, this.texted)
      if (this.texted) this.readTable(this.textTable, false)
      const value = this.value()
      if (this.pos !== this.end) throw corrupt(`${this.end - this.pos} unexpected bytes after the value`)
      if (!this.table.used || !this.textTable.used) throw corrupt('a string table holds characters no string of the value uses')
      return value
    } catch (e) {
      this.columns?.clear() // columns read halfway must not keep their values alive
      throw e
    } finally {
      this.bytes = EMPTY
      this.words = EMPTY_WORDS
      this.window = ''
      this.table.clear()
      this.textTable.clear()
      if (this.shapes.length > 0) this.shapes.length = 0
    }
  }

  // A format-3 or 4 payload starts with its string tables: bins of UTF-8, each decoded here into
  // `into` (in one call, or in pieces when large). `ascii`: format 4's first table, whose bytes must
  // all be ASCII (as many chars as bytes: a check that costs nothing).
  private readTable(into: TableText, ascii: boolean): void {
    this.need(1)
    const b = this.bytes[this.pos++] as number
    const length = b === 0xc4 ? this.uint(1) : b === 0xc5 ? this.uint(2) : b === 0xc6 ? this.uint(4) : -1
    if (length < 0) throw corrupt('a format 3 or 4 payload does not start with its string tables (bins)')
    this.need(length)
    const start = this.pos
    this.pos += length
    try {
      into.open(this.bytes.subarray(start, start + length))
    } catch (e) {
      throw corrupt('a string table is not valid UTF-8', e)
    }
    if (ascii && into.length !== length) throw corrupt('the ASCII string table holds a byte past 0x7F')
  }

  // The next `length` UTF-16 code units of the string table (format 4: of its ASCII table).
  private tableString(length: number): string {
    if (!this.tabled) throw corrupt('a string reference in a payload without a string table')
    if (length > 0) this.spend(OBJECT_WORK)
    const text = this.table.take(length)
    if (text === undefined) throw corrupt('a string reference runs past the end of the string table')
    return text
  }

  // The next `length` UTF-16 code units of format 4's text table.
  private textString(length: number): string {
    if (!this.texted) throw corrupt('a text reference in a payload without a text table')
    if (length > 0) this.spend(OBJECT_WORK)
    const text = this.textTable.take(length)
    if (text === undefined) throw corrupt('a text reference runs past the end of the text table')
    return text
  }

  private get view(): DataView {
    return (this.dataView ??= new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength))
  }

  private need(n: number): void {
    if (this.pos + n > this.end) throw truncated('the payload ends in the middle of a value')
  }

  private count(n: number): void {
    if ((this.items += n) > this.settings.maxItems) {
      throw limitExceeded(`the value holds more than maxItems (${this.settings.maxItems}) array elements and object properties`)
    }
    this.spend(n * ITEM_WORK)
  }

  // Counts work before it is done (see work.ts).
  private spend(units: number): void {
    if ((this.work += units) > this.budget) {
      throw limitExceeded(`the value asks for more decoding work than its stored size allows (maxWorkPerByte ${this.settings.maxWorkPerByte})`)
    }
  }

  private enter(): void {
    if (++this.depth > this.settings.maxDepth) throw limitExceeded(`the value is nested deeper than maxDepth (${this.settings.maxDepth})`)
  }

  /** Reads the next value of the payload (a shape's builder calls it for each of an object's values). */
  value(): unknown {
    if (this.pos >= this.end) throw truncated('the payload ends in the middle of a value')
    const b = this.bytes[this.pos++] as number
    if (b < 0x80) return b
    if (b < 0x90) return this.map(b & 0x0f)
    if (b < 0xa0) return this.array(b & 0x0f, undefined)
    if (b < 0xc0) return this.text(b & 0x1f)
    if (b >= 0xe0) return b - 0x100
    switch (b) {
      case 0xc0:
        return null
      case 0xc2:
        return false
      case 0xc3:
        return true
      case 0xc4:
        return this.binValue(this.uint(1))
      case 0xc5:
        return this.binValue(this.uint(2))
      case 0xc6:
        return this.binValue(this.uint(4))
      case 0xc7:
        return this.ext(this.uint(1), undefined, 0)
      case 0xc8:
        return this.ext(this.uint(2), undefined, 0)
      case 0xc9:
        return this.ext(this.uint(4), undefined, 0)
      case 0xca:
        this.need(4)
        this.scratch(4)
        return SCRATCH_F32[0]
      case 0xcb:
        this.need(8)
        this.scratch(8)
        return SCRATCH_F64[0]
      case 0xcc:
        return this.uint(1)
      case 0xcd:
        return this.uint(2)
      case 0xce:
        return this.uint(4)
      case 0xcf: {
        this.need(8)
        const hi = this.uint32At(this.pos)
        const lo = this.uint32At(this.pos + 4)
        this.pos += 8
        // Beyond 2^53 a number would silently lose digits: return the exact bigint instead.
        return hi < 0x200000 ? hi * TWO_32 + lo : this.view.getBigUint64(this.pos - 8)
      }
      case 0xd0:
        this.need(1)
        return ((this.bytes[this.pos++] as number) << 24) >> 24
      case 0xd1: {
        this.need(2)
        const v = ((((this.bytes[this.pos] as number) << 8) | (this.bytes[this.pos + 1] as number)) << 16) >> 16
        this.pos += 2
        return v
      }
      case 0xd2: {
        this.need(4)
        const v = this.uint32At(this.pos) | 0
        this.pos += 4
        return v
      }
      case 0xd3: {
        this.need(8)
        const hi = this.uint32At(this.pos) | 0
        const lo = this.uint32At(this.pos + 4)
        this.pos += 8
        // -2^53 itself is past ±(2^53 - 1): a bigint, as 2^53 is for uint 64.
        return (hi > -0x200000 || (hi === -0x200000 && lo !== 0)) && hi < 0x200000 ? hi * TWO_32 + lo : this.view.getBigInt64(this.pos - 8)
      }
      case 0xd4: {
        const type = this.bytes[this.pos]
        if (type === ExtType.STRING && this.pos + 2 <= this.end) {
          this.pos += 2
          return this.tableString(this.bytes[this.pos - 1] as number)
        }
        if (type === ExtType.TEXT && this.pos + 2 <= this.end) {
          this.pos += 2
          return this.textString(this.bytes[this.pos - 1] as number)
        }
        return this.ext(1, undefined, 0)
      }
      case 0xd5: {
        const type = this.bytes[this.pos]
        if (type === ExtType.STRING && this.pos + 3 <= this.end) {
          this.pos += 3
          return this.tableString(((this.bytes[this.pos - 2] as number) << 8) | (this.bytes[this.pos - 1] as number))
        }
        if (type === ExtType.TEXT && this.pos + 3 <= this.end) {
          this.pos += 3
          return this.textString(((this.bytes[this.pos - 2] as number) << 8) | (this.bytes[this.pos - 1] as number))
        }
        return this.ext(2, undefined, 0)
      }
      case 0xd6:
        return this.ext(4, undefined, 0)
      case 0xd7:
        return this.ext(8, undefined, 0)
      case 0xd8:
        return this.ext(16, undefined, 0)
      case 0xd9:
        return this.text(this.uint(1))
      case 0xda:
        return this.text(this.uint(2))
      case 0xdb:
        return this.text(this.uint(4))
      case 0xdc:
        return this.array(this.uint(2), undefined)
      case 0xdd:
        return this.array(this.uint(4), undefined)
      case 0xde:
        return this.map(this.uint(2))
      case 0xdf:
        return this.map(this.uint(4))
      default:
        throw corrupt(`byte 0x${b.toString(16)} is not valid MessagePack`)
    }
  }

  private uint(size: 1 | 2 | 4): number {
    this.need(size)
    const bytes = this.bytes
    const p = this.pos
    this.pos += size
    if (size === 1) return bytes[p] as number
    if (size === 2) return ((bytes[p] as number) << 8) | (bytes[p + 1] as number)
    return this.uint32At(p)
  }

  private uint32At(p: number): number {
    const bytes = this.bytes
    return (((bytes[p] as number) << 24) | ((bytes[p + 1] as number) << 16) | ((bytes[p + 2] as number) << 8) | (bytes[p + 3] as number)) >>> 0
  }

  // Copies the next `size` big-endian bytes into SCRATCH in machine order and moves past them.
  private scratch(size: 4 | 8): void {
    const bytes = this.bytes
    const p = this.pos
    if (LITTLE_ENDIAN) for (let i = 0; i < size; i++) SCRATCH[i] = bytes[p + size - 1 - i] as number
    else for (let i = 0; i < size; i++) SCRATCH[i] = bytes[p + i] as number
    this.pos = p + size
  }

  // `into`: where the elements go (a RECORDS column the pool keeps, see column()). Every call
  // passes both arguments: SpiderMonkey's JIT pays extra for a call with fewer arguments than
  // parameters, and array() is called for every array of a payload.
  private array(n: number, into: unknown[] | undefined): unknown {
    // Counted first (so the start of a payload shows a count past maxItems), then every element
    // takes at least one byte: counts the input cannot hold are refused before allocating.
    this.count(n)
    this.need(n)
    this.enter()
    this.spend(OBJECT_WORK)
    let out: unknown
    if (n > 1) {
      const shape = this.shapeAhead(n - 1)
      if (shape !== undefined) {
        out = shape.read(this, this.compiles)
        if (this.freeze) Object.freeze(out)
        this.depth--
        return out
      }
    }
    const items = into ?? new Array<unknown>(n)
    for (let i = 0; i < n; i++) items[i] = this.value()
    // `into` is a RECORDS column the pool keeps (see column()): never handed out.
    if (this.freeze && into === undefined) Object.freeze(items)
    this.depth--
    return items
  }

  private map(n: number): Record<string, unknown> {
    this.count(n)
    this.need(n * 2)
    this.enter()
    this.spend(OBJECT_WORK)
    const out: Record<string, unknown> = {}
    for (let i = 0; i < n; i++) {
      const key = this.key()
      const value = this.value()
      if (key === '__proto__') define(out, key, value)
      else out[key] = value
    }
    if (this.freeze) Object.freeze(out)
    this.depth--
    return out
  }

  // A map key: short str keys come from the key cache; anything else must decode to a string.
  private key(): string {
    const b = this.bytes[this.pos] as number
    let length = -1
    if (b >= 0xa0 && b < 0xc0) length = b & 0x1f
    else if (b === 0xd9 && this.pos + 1 < this.end) length = this.bytes[this.pos + 1] as number
    if (length >= 0 && length <= MAX_CACHED_KEY) {
      const start = this.pos + (b === 0xd9 ? 2 : 1)
      if (start + length > this.end) throw truncated('the payload ends in the middle of a value')
      const known = this.keys.get(this.bytes, start, length)
      if (known !== undefined) {
        this.pos = start + length
        return known
      }
      this.pos = start
      const key = this.string(length)
      this.keys.set(this.bytes, start, length, key)
      return key
    }
    if ((b >= 0xa0 && b < 0xc0) || b === 0xd9 || b === 0xda || b === 0xdb) {
      this.pos++
      return this.string(b < 0xc0 ? b & 0x1f : this.uint(b === 0xd9 ? 1 : b === 0xda ? 2 : 4))
    }
    // Anything else is a key only as a UTF16 extension (FORMAT.md §2): not a table reference, nor
    // a user extension that decodes to a string (which the shape book, keyed by bytes, would share
    // between codecs with different extensions).
    if (!this.utf16Ahead()) throw corrupt('an object key is not a string')
    return this.value() as string
  }

  // Whether the next value is a UTF16 extension (any ext form).
  private utf16Ahead(): boolean {
    const bytes = this.bytes
    const p = this.pos
    const b = bytes[p] as number
    const at = b >= 0xd4 && b <= 0xd8 ? p + 1 : b === 0xc7 ? p + 2 : b === 0xc8 ? p + 3 : b === 0xc9 ? p + 5 : -1
    return at >= 0 && at < this.end && ((bytes[at] as number) << 24) >> 24 === ExtType.UTF16
  }

  // A str in value position: an object to allocate, unless empty.
  private text(length: number): string {
    if (length > 0) this.spend(OBJECT_WORK)
    return this.string(length)
  }

  private string(length: number): string {
    const start = this.pos
    const end = start + length
    if (end > this.end) throw truncated('the payload ends in the middle of a value')
    this.pos = end
    if (length === 0) return ''
    if (length <= WINDOW) {
      if (this.isAscii(start, end)) {
        if (start < this.windowStart || end > this.windowEnd) {
          this.windowStart = start
          this.windowEnd = Math.max(end, Math.min(this.bytes.length, start + WINDOW))
          this.window = this.platform.byteString(this.bytes, start, this.windowEnd)
        }
        return this.window.substring(start - this.windowStart, end - this.windowStart)
      }
    }
    try {
      return strictUtf8.decode(this.bytes.subarray(start, end))
    } catch (e) {
      throw corrupt('a string is not valid UTF-8', e)
    }
  }

  private makeWords(): void {
    const bytes = this.bytes
    this.wordsFrom = (4 - (bytes.byteOffset & 3)) & 3
    this.words = new Int32Array(bytes.buffer, bytes.byteOffset + this.wordsFrom, (bytes.length - this.wordsFrom) >> 2)
  }

  private isAscii(start: number, end: number): boolean {
    const bytes = this.bytes
    if (end - start >= WORDWISE && this.words === EMPTY_WORDS) this.makeWords()
    const from = this.wordsFrom
    let i = start
    if (end - start >= WORDWISE) {
      while (((i - from) & 3) !== 0) if ((bytes[i++] as number) >= 0x80) return false
      const words = this.words
      const last = (end - from) >> 2
      for (let w = (i - from) >> 2; w < last; w++) if (((words[w] as number) & 0x80808080) !== 0) return false
      i = from + last * 4
    }
    for (; i < end; i++) if ((bytes[i] as number) >= 0x80) return false
    return true
  }

  // A bin in value position: an ArrayBuffer to allocate.
  private binValue(length: number): Uint8Array<ArrayBuffer> {
    this.spend(EXTENSION_WORK)
    return this.bin(length)
  }

  private bin(length: number): Uint8Array<ArrayBuffer> {
    this.need(length)
    const out = this.bytes.slice(this.pos, this.pos + length)
    this.pos += length
    return out
  }

  // `into` and `n`: the extension is a RECORDS column (see column()); passed by every call, as array()'s.
  private ext(length: number, into: unknown[] | undefined, n: number): unknown {
    this.need(this.prefix ? 1 : 1 + length)
    const type = ((this.bytes[this.pos] as number) << 24) >> 24
    const start = this.pos + 1
    const end = this.prefix ? Math.min(start + length, this.end) : start + length
    this.pos = start
    // Confine the nested read to this extension's bytes.
    const outerEnd = this.end
    this.end = end
    const value = this.extValue(type, length, into, n)
    if (this.pos !== end) throw corrupt(`extension ${type} has ${end - this.pos} bytes its contents do not use`)
    this.end = outerEnd
    return value
  }

  private extValue(type: number, length: number, into: unknown[] | undefined, n: number): unknown {
    const at = this.pos
    if (type !== ExtType.UNDEFINED) this.spend(EXTENSION_WORK)
    switch (type) {
      case ExtType.UNDEFINED:
        this.whole(length)
        if (length !== 1 || this.bytes[at] !== 0) throw corrupt('bad undefined extension')
        this.pos++
        return undefined
      case ExtType.TIMESTAMP:
        this.whole(length)
        this.pos += length
        return readTimestamp(this.view, at, length)
      case ExtType.INVALID_DATE:
        if (length !== 0) throw corrupt('bad invalid-date extension')
        return new Date(Number.NaN)
      case ExtType.BIGINT: {
        checkBigintSize(length) // a size past the limit is refused even at the end of a prefix
        this.spend(length * BIGINT_BYTE_WORK)
        this.bigintBytes = addBigintBytes(this.bigintBytes, length)
        this.whole(length)
        const value = readBigint(this.bytes, at, length)
        this.pos += length
        return value
      }
      case ExtType.TYPED_ARRAY:
        this.whole(length)
        this.pos += length
        return readTypedArray(this.bytes, at, length)
      case ExtType.ARRAY_BUFFER:
        return this.bin(length).buffer
      case ExtType.DATA_VIEW:
        return new DataView(this.bin(length).buffer)
      case ExtType.UTF16:
        this.whole(length)
        this.pos += length
        return readUtf16(this.bytes, at, length)
      case ExtType.MAP:
        return this.frozenAfter(mapFromData(this.thawed()))
      case ExtType.SET:
        return this.frozenAfter(setFromData(this.thawed()))
      case ExtType.REGEXP:
        return regexpFromData(this.thawed())
      case ExtType.DELTA:
        return this.delta(into, n)
      case ExtType.DICT:
        return this.frozenAfter(dictFromData(this.thawed(), define))
      case ExtType.RECORDS:
        return this.records(into, n)
      case ExtType.STRING:
        if (length !== 1 && length !== 2 && length !== 4) throw corrupt('bad string reference')
        return this.tableString(this.uint(length))
      case ExtType.TEXT:
        if (length !== 1 && length !== 2 && length !== 4) throw corrupt('bad text reference')
        return this.textString(this.uint(length))
      case ExtType.SHAPE:
      case ExtType.SHAPE_REF:
        throw corrupt('a shape marker outside the first element of an array')
      default: {
        const ext = this.extensions.get(type)
        if (ext === undefined) throw unsupportedType(`the value holds extension type ${type}, which no registered extension handles`)
        return this.frozenAfter(ext.decode(this.thawed()))
      }
    }
  }

  // An extension read as `length` raw bytes needs them all. Outside a prefix scan ext() has checked
  // that already; in one, an extension may run past the bytes at hand, and is then cut short.
  private whole(length: number): void {
    if (this.pos + length > this.end) throw truncated('the payload ends in the middle of a value')
  }

  // An extension whose data is itself a MessagePack value: one level deeper.
  private nested(): unknown {
    this.enter()
    const value = this.value()
    this.depth--
    return value
  }

  // nested() for data a function builds the value from (and may change: a user extension, DELTA
  // summed in place): read unfrozen, the value frozen after (frozenAfter).
  private thawed(): unknown {
    const freeze = this.freeze
    this.freeze = false
    const data = this.nested()
    this.freeze = freeze
    return data
  }

  private frozenAfter<T>(value: T): T {
    if (this.freeze) deepFreeze(value)
    return value
  }

  // RECORDS data: [count, keys, column 0, …, column k-1], read field by field. The rows go into
  // `into` when there are `expected` of them (RECORDS that are a column of RECORDS around them).
  private records(into: unknown[] | undefined, expected: number): unknown[] {
    this.enter()
    this.need(1)
    const head = this.bytes[this.pos++] as number
    const fields = (head & 0xf0) === 0x90 ? head & 0x0f : head === 0xdc ? this.uint(2) : head === 0xdd ? this.uint(4) : -1
    if (fields < 3) throw corrupt('bad records extension')
    this.count(fields)
    this.enter()
    const n = this.value()
    // The rows are not counted against maxItems (each column holds n values, and the columns are
    // counted), but each is an object to build: work, charged before any column is read.
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw corrupt('bad records extension')
    this.spend(n * OBJECT_WORK)
    const shape = this.keyList(fields - 2)
    const level = this.level++
    const columns = new Array<unknown[]>(fields - 2)
    // Every column is read before a wrong one is reported, as a reader of whole arrays would.
    let whole = true
    for (let j = 0; j < columns.length; j++) {
      const column = this.column(level, j, n)
      if (column === undefined) whole = false
      else columns[j] = column
    }
    this.level--
    this.depth -= 2
    if (!whole) throw corrupt('a records column has the wrong length')
    const rows = shape.rows(columns, n, into !== undefined && n === expected ? into : new Array<unknown>(n), this.compiles)
    if (this.freeze) {
      for (let i = 0; i < n; i++) Object.freeze(rows[i])
      if (rows !== into) Object.freeze(rows)
    }
    if (this.columns !== undefined && n >= POOLED_FROM) for (let j = 0; j < columns.length; j++) this.columns.release(level, j, columns[j] as unknown[], n)
    return rows
  }

  // Column `j` of RECORDS of `n` rows at nesting `level`: an array of `n` values (plain, DELTA or
  // RECORDS), read into the pool's array for it; undefined when it is anything else. Counts,
  // depth, work and errors are those of reading the column as a value.
  private column(level: number, j: number, n: number): unknown[] | undefined {
    if (this.columns === undefined || n < POOLED_FROM) {
      const value = this.value()
      return Array.isArray(value) && value.length === n ? value : undefined
    }
    const into = this.columns.take(level, j, n)
    this.need(1)
    const b = this.bytes[this.pos] as number
    let value: unknown
    if (this.prefix || b < 0xc7 || (b > 0xc9 && b < 0xd4) || b > 0xd8) value = this.arrayInto(into, n)
    else {
      this.pos++
      value = this.ext(b >= 0xd4 ? 1 << (b - 0xd4) : this.uint(b === 0xc7 ? 1 : b === 0xc8 ? 2 : 4), into, n)
    }
    if (value === into) return into
    return Array.isArray(value) && value.length === n ? value : undefined
  }

  // The next value, read into `into` when it is an array of exactly `n` values; anything else
  // (an object marked by a SHAPE too) is read as value() reads it.
  private arrayInto(into: unknown[], n: number): unknown {
    const b = this.bytes[this.pos] as number
    if ((b & 0xf0) !== 0x90 && b !== 0xdc && b !== 0xdd) return this.value()
    this.pos++
    const length = b < 0xa0 ? b & 0x0f : this.uint(b === 0xdc ? 2 : 4)
    return this.array(length, length === n ? into : undefined)
  }

  // DELTA data (first value, then differences), summed as it is read: into `into` when it is an
  // array of `n` values (a RECORDS column, see column()), into a new array otherwise. Reading the
  // array and then summing it in a second pass (fromDeltas) took an eighth of decoding W1 on Node.
  // Counts, depth, work and errors are those of reading the data as a value and then summing it:
  // a difference that is not a safe integer, or a sum past ±2^53, is reported after the rest of
  // the array is read, so that an error further on comes first, as it would from a reader of the
  // whole array. An object (an array led by a SHAPE marker) is read and refused; anything else
  // (a prefix scan, another extension) is read as a value and summed by fromDeltas.
  private delta(into: unknown[] | undefined, n: number): number[] {
    const bytes = this.bytes
    const b = this.pos < this.end ? (bytes[this.pos] as number) : 0xc1
    if (this.prefix || ((b & 0xf0) !== 0x90 && b !== 0xdc && b !== 0xdd)) return this.frozenAfter(fromDeltas(this.thawed()))
    this.enter() // the extension's data, as nested()
    this.pos++
    const length = b < 0xa0 ? b & 0x0f : this.uint(b === 0xdc ? 2 : 4)
    // As array() starts an array. Kept beside it, not shared: with one helper for both, two runs in
    // the browsers decoded slower (Chromium webhooks 1.24-1.26x JSON.parse against 1.19x, Firefox
    // emojibase and browser-compat-data 10-30% slower; 2026-11-28), and array() is the hottest path.
    this.count(length)
    this.need(length)
    this.enter()
    this.spend(OBJECT_WORK)
    const shape = length > 1 ? this.shapeAhead(length - 1) : undefined
    if (shape !== undefined) {
      // An object is no DELTA data; read first, as a reader of the whole value would.
      shape.read(this, this.compiles)
      throw corrupt('bad delta extension')
    }
    const out = into !== undefined && length === n ? into : new Array<unknown>(length)
    const end = this.end
    let p = this.pos
    let acc = 0
    let bad = length === 0
    for (let i = 0; i < length; i++) {
      const c = p < end ? (bytes[p] as number) : 0xc1
      let d: number
      if (c < 0x80) {
        d = c
        p++
      } else if (c >= 0xe0) {
        d = c - 0x100
        p++
      } else {
        this.pos = p
        const v = this.value()
        p = this.pos
        if (typeof v !== 'number' || !Number.isSafeInteger(v)) bad = true
        d = v as number
      }
      if (bad) continue
      // Integers: the sum is one too, and safe while within ±(2^53 - 1).
      const sum = acc + d
      if (sum > Number.MAX_SAFE_INTEGER || sum < -Number.MAX_SAFE_INTEGER) bad = true
      else out[i] = acc = sum
    }
    this.pos = p
    this.depth -= 2
    if (bad) throw corrupt('bad delta extension')
    if (this.freeze && out !== into) Object.freeze(out)
    return out as number[]
  }

  // The shape whose keys the next value lists (a msgpack array of `k` strings), from the shape
  // book when these exact bytes were seen before.
  private keyList(k: number): Shape {
    const start = this.pos
    this.skipKeys(k)
    const end = this.pos
    this.count(k)
    this.spend(k * KEY_LIST_WORK)
    return shapeFor(this.view, this.bytes, start, end, () => {
      this.pos = start
      const keys = new Array<string>(k)
      const head = this.bytes[this.pos++] as number
      this.pos += head === 0xdc ? 2 : head === 0xdd ? 4 : 0
      for (let i = 0; i < k; i++) keys[i] = this.key()
      this.pos = end
      return keys
    })
  }

  // Moves past an array of `k` keys, checking its header and that each key is a str or UTF16.
  private skipKeys(k: number): void {
    this.need(1)
    const head = this.bytes[this.pos++] as number
    const length = (head & 0xf0) === 0x90 ? head & 0x0f : head === 0xdc ? this.uint(2) : head === 0xdd ? this.uint(4) : -1
    if (length !== k) throw corrupt('a list of keys has the wrong length')
    for (let i = 0; i < k; i++) {
      this.need(1)
      const b = this.bytes[this.pos++] as number
      let size: number
      if (b >= 0xa0 && b < 0xc0) size = b & 0x1f
      else if (b === 0xd9) size = this.uint(1)
      else if (b === 0xda) size = this.uint(2)
      else if (b === 0xdb) size = this.uint(4)
      else {
        this.pos--
        if (!this.utf16Ahead()) throw corrupt('an object key is not a string')
        this.value()
        continue
      }
      this.need(size)
      this.pos += size
    }
  }

  // When the array about to be read starts with a SHAPE or SHAPE_REF marker, reads the marker and
  // returns the shape of the object the array stands for (its `k` values follow).
  private shapeAhead(k: number): Shape | undefined {
    const bytes = this.bytes
    const p = this.pos
    const b = bytes[p] as number
    let type: number
    let length: number
    let data: number
    if (b >= 0xd4 && b <= 0xd8) {
      type = bytes[p + 1] as number
      length = 1 << (b - 0xd4)
      data = p + 2
    } else if (b === 0xc7) {
      type = bytes[p + 2] as number
      length = bytes[p + 1] as number
      data = p + 3
    } else if (b === 0xc8) {
      type = bytes[p + 3] as number
      length = ((bytes[p + 1] as number) << 8) | (bytes[p + 2] as number)
      data = p + 4
    } else if (b === 0xc9) {
      // Stowage writes no shape this long, but readers accept every ext form (FORMAT.md §2).
      type = bytes[p + 5] as number
      length = this.uint32At(p + 1)
      data = p + 6
    } else return undefined
    if (type !== ExtType.SHAPE && type !== ExtType.SHAPE_REF) return undefined
    if (data + length > this.end) throw truncated('the payload ends in the middle of a value')
    let shape: Shape | undefined
    if (type === ExtType.SHAPE_REF) {
      const id = length === 1 ? (bytes[data] as number) : length === 2 ? ((bytes[data] as number) << 8) | (bytes[data + 1] as number) : -1
      shape = this.shapes[id]
      if (shape === undefined) throw corrupt('a shape reference to a shape not defined before it')
      this.pos = data + length
    } else {
      // Bytes the book already read as k str keys are those keys again: counted and charged as
      // keyList counts and charges them, without a second walk over them (skipKeys).
      const known = knownShape(this.view, bytes, data, data + length)
      if (known !== undefined && known.plain && known.keys.length === k) {
        this.count(k)
        this.spend(k * KEY_LIST_WORK)
        this.pos = data + length
        shape = known
      } else {
        this.pos = data
        const outerEnd = this.end
        this.end = data + length
        shape = this.keyList(k)
        if (this.pos !== this.end) throw corrupt('a shape has bytes its keys do not use')
        this.end = outerEnd
      }
      this.shapes.push(shape)
    }
    if (shape.keys.length !== k) throw corrupt('an object has more or fewer values than its shape has keys')
    return shape
  }
}
