// Writes one JavaScript value as MessagePack with Stowage's extensions (FORMAT.md §2). The type
// dispatch stays here, in switches, for speed; each built-in type's bytes are written and read by
// its file in types/. Plain objects go through the key trie: keys are converted to UTF-8 once and
// kept, and objects whose keys repeat become shapes (keys once, then a 3–4 byte reference).
import { limitExceeded, unsupportedType } from '../errors/make.js'
import type { Extension } from './extension.js'
import { ExtType, FORMAT_VERSION_2, FORMAT_VERSION_3, MAX_SHAPE_KEYS, MAX_SHAPES, MIN_DELTA, MIN_RECORDS, MIN_TABLE_STRINGS } from './format.js'
import { KeyTrie, type KeyNode } from './key-trie.js'
import type { Platform } from './platform/platform.js'
import { addBigintBytes, bigintToData } from './types/bigint.js'
import { mapToData, regexpToData } from './types/collections.js'
import { isMonotonicIntegers, sharedKeys, worthRecords } from './types/records.js'
import { isWellFormed, strHeaderSize, utf16Bytes, writeStrHeader } from './types/string.js'
import { placeStringTables, tablesSize, type StringTables } from './types/string-table.js'
import { MAX_DATE_SIZE, writeDate } from './types/timestamp.js'
import { typedArrayKind } from './types/typed-array.js'
import { BIGINT_BYTE_WORK, EXTENSION_WORK, ITEM_WORK, KEY_LIST_WORK, OBJECT_WORK, payloadWork, workBudget } from './work.js'

/** Settings an {@link Encoder} needs; validated by the codec before they get here. */
export interface EncoderSettings {
  readonly maxDepth: number
  readonly maxBytes: number
  readonly maxItems: number
  readonly maxWorkPerByte: number
  readonly extensions: readonly Extension[]
}

// Strings this short are written by a plain loop: below it, a call into the runtime's UTF-8 writer
// (~100 ns) costs more than the loop, even when a Redis client has slowed
// String.prototype.charCodeAt (see apps/bench/RESULTS.md, "What each encoder change bought").
const SHORT_STRING = 16
// Above this many chars a string is encoded on its own first, so a huge string does not reserve
// three bytes per char in the output buffer.
const HUGE_STRING = 1 << 20
const INITIAL_BUFFER = 64 * 1024
const TWO_32 = 4294967296
// A value whose payload came out smaller than this with fewer than MIN_TABLE_STRINGS strings is
// written again without the table (format 2): cheap at this size, and it saves the table's bytes.
const REWRITE_BELOW = 16 * 1024
// An object with this many keys becomes a shape at first sight: the SHAPE marker costs a few
// bytes, and readers build objects of known shapes much faster than key by key.
const SHAPE_AT_FIRST_SIGHT = 8

/** Thrown when nesting goes past maxDepth; the codec turns it into CYCLE or LIMIT_EXCEEDED. */
export class DepthExceeded {
  constructor(readonly value: unknown) {}
}

/** What the encoder could not store, for the codec's error message and the path to it. */
export class Refused {
  constructor(
    readonly value: unknown,
    readonly reason: string,
  ) {}
}

function isRealmPlainObject(proto: object): boolean {
  // Object.prototype of another realm (a vm context, an iframe): its own prototype is null.
  return Object.getPrototypeOf(proto) === null && typeof (proto as { constructor?: unknown }).constructor === 'function' && (proto as { constructor: { name: string } }).constructor.name === 'Object'
}

// Whether a SHAPE marker spelling `keys` surely fits an ext 16: 64 KiB of key list, counting
// three bytes a UTF-16 unit (UTF-8's most, or a UTF16 extension's two plus its header) and five a
// key for headers.
function literalShapeFits(keys: readonly string[]): boolean {
  let bytes = 5
  for (const key of keys) bytes += 5 + 3 * key.length
  return bytes <= 0xffff
}

/**
 * One instance is reused across calls (its buffer grows and is kept), so it is not re-entrant: the
 * codec gives a nested call (an extension that encodes) its own instance.
 */
export class Encoder {
  /** The output buffer; the payload of the last call is `buf[start..pos)`. */
  buf: Uint8Array
  pos = 0
  // The same memory as the platform allocated it (a Node Buffer), for its UTF-8 writer only: a
  // Buffer's subarray() builds a Buffer, far slower than a plain Uint8Array's.
  private sink: Uint8Array
  busy = false
  private view: DataView
  private depth = 0
  // The deepest nesting the value reached.
  private deepest = 0
  private items = 0
  // The decoding work the value will ask of a reader (work.ts), never less than the reader counts,
  // and the magnitude bytes of its BIGINTs so far.
  private work = 0
  private bigintBytes = 0
  // Whether arrays of same-shaped objects may become RECORDS (see encode()).
  private columns = true
  private shapes = 0
  private root: KeyNode
  private readonly trie = new KeyTrie()
  // One scratch array per nesting level for the trie nodes of the object being written.
  private readonly paths: KeyNode[][] = []
  // Formats 3 and 4: value strings go to the string tables, in the order they are written.
  private table = false
  private readonly strings: StringTables

  constructor(
    private readonly settings: EncoderSettings,
    private readonly platform: Platform,
  ) {
    this.sink = platform.alloc(INITIAL_BUFFER)
    this.buf = new Uint8Array(this.sink.buffer, this.sink.byteOffset, this.sink.byteLength)
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
    this.root = this.trie.begin()
    this.strings = platform.stringTables(settings.maxBytes)
  }

  /**
   * Encodes `value` from offset `start` of the buffer (the caller reserves room for a header
   * there) and hands the payload, `buf[start..end)`, its format version and the work it asks of a
   * reader (work.ts) and the deepest nesting it reached to `use` while it sits there. With `newest` 3 or 4 a value with enough strings
   * gets string tables (format 4 when a table string is not ASCII, else 3), any other is written as
   * format 2. A call made during another (an extension whose encode calls the codec again) gets an
   * encoder of its own, so neither overwrites the other's bytes.
   * @throws {StowageError} LIMIT_EXCEEDED; {@link Refused} and {@link DepthExceeded} for the codec to describe.
   */
  write<R>(value: unknown, start: number, newest: 2 | 3 | 4, use: (buf: Uint8Array, start: number, end: number, version: 2 | 3 | 4, work: number, deepest: number) => R): R {
    if (this.busy) return new Encoder(this.settings, this.platform).write(value, start, newest, use)
    this.busy = true
    try {
      let version: 2 | 3 | 4 = FORMAT_VERSION_2
      const split = newest > FORMAT_VERSION_3
      let end = this.encodeReadable(value, start, newest >= FORMAT_VERSION_3, split)
      if (this.table) {
        const n = this.strings.count
        const placed = n === 0 || (n < MIN_TABLE_STRINGS && end - start + this.strings.chars < REWRITE_BELOW) ? undefined : this.withTables(start, end)
        if (placed !== undefined) {
          ;[end, version] = placed
        } else if (n > 0) {
          // A table not worth its bytes, or strings whose UTF-8 would not be exact: format 2.
          end = this.encodeReadable(value, start, false, false)
        }
      }
      return use(this.buf, start, end, version, this.work, this.deepest)
    } finally {
      this.busy = false
      this.strings.trim()
      this.trim()
    }
  }

  // RECORDS nested in RECORDS columns build rows that take no bytes of their own, so a value of
  // many such levels may ask more work per byte than a reader allows even uncompressed: it is
  // written again without RECORDS, where every object takes bytes. With a string table the payload
  // is at least its strings' length longer than what is written here, which the check counts.
  private encodeReadable(value: unknown, start: number, table: boolean, split: boolean): number {
    this.columns = true
    let end = this.encode(value, start, table, split)
    if (this.readable(end - start + this.strings.chars)) return end
    this.columns = false
    end = this.encode(value, start, table, split)
    if (this.readable(end - start + this.strings.chars)) return end
    throw limitExceeded(`the value asks for more decoding work than its size allows (maxWorkPerByte ${this.settings.maxWorkPerByte})`)
  }

  private readable(size: number): boolean {
    return this.work + payloadWork(size) <= workBudget(size, this.settings.maxWorkPerByte)
  }

  private encode(value: unknown, start: number, table: boolean, split: boolean): number {
    this.pos = start
    this.depth = 0
    this.deepest = 0
    this.items = 0
    this.work = 0
    this.bigintBytes = 0
    this.shapes = 0
    this.table = table
    this.strings.reset(split)
    this.root = this.trie.begin()
    this.ensure(0)
    this.value(value)
    if (this.pos - start > this.settings.maxBytes) throw this.tooBig()
    return this.pos
  }

  // Puts the string tables (bins of the table strings' UTF-8) before the value written at
  // buf[start..end); returns the payload's new end and format version, or undefined when a string
  // has a lone surrogate (the value is then written again without tables, where such strings are
  // UTF16 extensions).
  private withTables(start: number, end: number): [number, 3 | 4] | undefined {
    const built = this.strings.build(this.buf)
    if (built === undefined) return undefined
    const size = tablesSize(built.tables)
    if (end - start + size > this.settings.maxBytes) throw this.tooBig()
    this.ensure(size)
    this.pos = placeStringTables(this.buf, start, end, built.tables)
    return [this.pos, built.version]
  }

  // Drops an oversized buffer after a huge value, so one big write does not pin its memory forever.
  private trim(): void {
    if (this.buf.length > 64 * INITIAL_BUFFER) this.resize(INITIAL_BUFFER)
  }

  private resize(size: number): void {
    const sink = this.platform.alloc(size)
    const next = new Uint8Array(sink.buffer, sink.byteOffset, sink.byteLength)
    next.set(this.buf.subarray(0, Math.min(this.pos, size)))
    this.sink = sink
    this.buf = next
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength)
  }

  private ensure(extra: number): void {
    const need = this.pos + extra
    if (need <= this.buf.length) return
    // Headroom for a header reserved ahead of its data, and for the envelope header before the payload.
    if (need > this.settings.maxBytes + 64) throw this.tooBig()
    let size = this.buf.length * 2
    while (size < need) size *= 2
    this.resize(size)
  }

  private tooBig(): Error {
    return limitExceeded(`the value encodes to more than maxBytes (${this.settings.maxBytes} bytes)`)
  }

  private count(n: number): void {
    if ((this.items += n) > this.settings.maxItems) {
      throw limitExceeded(`the value holds more than maxItems (${this.settings.maxItems}) array elements and object properties`)
    }
    this.work += n * ITEM_WORK
  }

  // A key written from its MessagePack bytes: one in the UTF16 form is an extension to a reader,
  // which may read it twice (a SHAPE's keys are skipped, then decoded when new).
  private keyWork(bytes: Uint8Array): void {
    const b = bytes[0] as number
    if (b < 0xa0 || (b > 0xbf && b < 0xd9)) this.work += 2 * EXTENSION_WORK
  }

  private enter(value: unknown): void {
    if (++this.depth <= this.deepest) return
    this.deepest = this.depth
    if (this.depth > this.settings.maxDepth) throw new DepthExceeded(value)
  }

  private value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        return this.table && v.length > 0 ? this.tableString(v) : this.string(v)
      case 'number':
        return this.number(v)
      case 'object':
        if (v === null) return this.byte(0xc0)
        return this.object(v)
      case 'boolean':
        return this.byte(v ? 0xc3 : 0xc2)
      case 'undefined':
        this.ensure(3)
        this.buf[this.pos++] = 0xd4
        this.buf[this.pos++] = ExtType.UNDEFINED
        this.buf[this.pos++] = 0
        return
      case 'bigint': {
        const data = bigintToData(v)
        this.bigintBytes = addBigintBytes(this.bigintBytes, data.length)
        this.work += data.length * BIGINT_BYTE_WORK
        return this.rawExt(ExtType.BIGINT, data)
      }
      default:
        throw new Refused(v, `a ${typeof v} cannot be stored`)
    }
  }

  private byte(b: number): void {
    this.ensure(1)
    this.buf[this.pos++] = b
  }

  private object(v: object): void {
    const proto = Object.getPrototypeOf(v)
    if (proto === Object.prototype || proto === null) return this.map(v as Record<string, unknown>)
    if (proto === Array.prototype) return this.array(v as unknown[])
    return this.special(v, proto)
  }

  // Everything but plain objects and arrays: user extensions first (they may claim a subclass),
  // then the built-in types by exact prototype, so that a subclass is never silently stored as its
  // base class.
  private special(v: object, proto: object): void {
    for (const ext of this.settings.extensions) {
      if (v instanceof ext.class) {
        this.enter(v)
        this.work += EXTENSION_WORK
        const start = this.beginExt()
        this.value(ext.encode(v))
        this.endExt(start, ext.type)
        this.depth--
        return
      }
    }
    if (proto === Date.prototype) {
      this.work += EXTENSION_WORK
      this.ensure(MAX_DATE_SIZE)
      this.pos = writeDate(this.buf, this.view, this.pos, v as Date)
      return
    }
    // Uint8Array and its subclasses (a Node Buffer) are bytes: they come back as a Uint8Array.
    if (v instanceof Uint8Array) return this.bin(v)
    if (proto === Map.prototype) {
      const [keys, values] = mapToData(v as Map<unknown, unknown>)
      this.enter(v)
      this.work += EXTENSION_WORK
      const start = this.beginExt()
      this.pair(keys, values)
      this.endExt(start, ExtType.MAP)
      this.depth--
      return
    }
    if (proto === Set.prototype) {
      this.enter(v)
      this.work += EXTENSION_WORK
      const start = this.beginExt()
      this.array([...(v as Set<unknown>)])
      this.endExt(start, ExtType.SET)
      this.depth--
      return
    }
    const kind = typedArrayKind(proto)
    if (kind !== undefined) {
      const view = v as ArrayBufferView
      return this.rawExt(ExtType.TYPED_ARRAY, new Uint8Array(view.buffer, view.byteOffset, view.byteLength), kind)
    }
    if (proto === ArrayBuffer.prototype) return this.rawExt(ExtType.ARRAY_BUFFER, new Uint8Array(v as ArrayBuffer))
    if (proto === DataView.prototype) {
      const view = v as DataView
      return this.rawExt(ExtType.DATA_VIEW, new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
    }
    if (proto === RegExp.prototype) {
      const [source, flags] = regexpToData(v as RegExp)
      this.enter(v)
      this.work += EXTENSION_WORK
      const start = this.beginExt()
      this.enter(v)
      this.arrayHeader(2)
      this.string(source)
      this.string(flags)
      this.depth--
      this.endExt(start, ExtType.REGEXP)
      this.depth--
      return
    }
    if (Array.isArray(proto)) return this.array(v as unknown[]) // Array.prototype of another realm
    if (isRealmPlainObject(proto)) return this.map(v as Record<string, unknown>)
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name
    const described = typeof name === 'string' && name !== '' ? `an instance of ${name}` : 'an instance of an unknown class'
    throw new Refused(v, `${described} cannot be stored without an extension for its class (a subclass of a built-in type too)`)
  }

  private pair(keys: unknown[], values: unknown[]): void {
    this.enter(keys)
    this.arrayHeader(2)
    this.array(keys)
    this.array(values)
    this.depth--
  }

  private array(items: readonly unknown[]): void {
    const n = items.length
    if (n >= MIN_RECORDS) {
      const first = items[0]
      if (typeof first === 'object' && this.columns) {
        const keys = sharedKeys(items)
        if (keys !== undefined && worthRecords(first as Record<string, unknown>, keys)) return this.records(items as Record<string, unknown>[], keys)
      } else if (typeof first === 'number' && n >= MIN_DELTA && isMonotonicIntegers(items)) {
        return this.delta(items as number[])
      }
    }
    this.enter(items)
    this.arrayHeader(n)
    for (let i = 0; i < n; i++) this.value(items[i])
    this.depth--
  }

  // RECORDS: the keys once, then one column per key. Columns are arrays again, so a column of
  // same-shaped objects becomes nested RECORDS and a sorted id or timestamp column becomes DELTA.
  private records(rows: readonly Record<string, unknown>[], keys: readonly string[]): void {
    const n = rows.length
    const k = keys.length
    this.enter(rows)
    this.work += EXTENSION_WORK + n * OBJECT_WORK
    const start = this.beginExt()
    this.enter(rows)
    this.arrayHeader(2 + k)
    this.number(n)
    this.keyArray(keys)
    const column = new Array<unknown>(n)
    for (let j = 0; j < k; j++) {
      const key = keys[j] as string
      for (let i = 0; i < n; i++) column[i] = (rows[i] as Record<string, unknown>)[key]
      this.array(column)
    }
    this.depth--
    this.endExt(start, ExtType.RECORDS)
    this.depth--
  }

  // A list of keys (RECORDS, DICT) written from the trie's cached bytes where it has them.
  private keyArray(keys: readonly string[]): void {
    this.arrayHeader(keys.length)
    this.work += keys.length * KEY_LIST_WORK
    let node: KeyNode | undefined = this.root
    for (const key of keys) {
      node = node === undefined ? undefined : this.trie.step(node, key)
      if (node === undefined) {
        // A reader may read a UTF16 key of a key list twice (see keyWork).
        if (!isWellFormed(key)) this.work += EXTENSION_WORK
        this.string(key)
      } else {
        this.keyWork(node.bytes)
        this.raw(node.bytes)
      }
    }
  }

  private delta(items: readonly number[]): void {
    this.enter(items)
    this.work += EXTENSION_WORK
    const start = this.beginExt()
    this.enter(items)
    const n = items.length
    this.arrayHeader(n)
    let prev = items[0] as number
    this.number(prev)
    for (let i = 1; i < n; i++) {
      const v = items[i] as number
      this.number(v - prev)
      prev = v
    }
    this.depth--
    this.endExt(start, ExtType.DELTA)
    this.depth--
  }

  private map(obj: Record<string, unknown>): void {
    const keys = Object.keys(obj)
    const n = keys.length
    if (n === 0) {
      this.enter(obj)
      this.mapHeader(0)
      this.depth--
      return
    }
    if (n >= MIN_RECORDS && n <= 0xffff && this.columns) {
      const first = obj[keys[0] as string]
      if (typeof first === 'object' && first !== null && !Array.isArray(first)) {
        const values = keys.map((key) => obj[key])
        const shape = sharedKeys(values)
        if (shape !== undefined && worthRecords(first as Record<string, unknown>, shape)) return this.dict(keys, values as Record<string, unknown>[], shape)
      }
    }
    this.enter(obj)
    if (n <= MAX_SHAPE_KEYS) {
      const path = this.paths[this.depth] ?? (this.paths[this.depth] = new Array<KeyNode>(MAX_SHAPE_KEYS))
      let node: KeyNode | undefined = this.root
      for (let i = 0; i < n && node !== undefined; i++) {
        node = this.trie.step(node, keys[i] as string)
        if (node !== undefined) path[i] = node
      }
      if (node !== undefined) {
        this.shaped(obj, keys, node, path)
        this.depth--
        return
      }
    }
    if (this.shapes < MAX_SHAPES && keys.includes('__proto__') && literalShapeFits(keys)) {
      this.literalShape(obj, keys)
      this.depth--
      return
    }
    this.mapHeader(n)
    for (let i = 0; i < n; i++) {
      const key = keys[i] as string
      this.string(key)
      this.value(obj[key])
    }
    this.depth--
  }

  // An object with a `__proto__` key that the trie does not take (more than MAX_SHAPE_KEYS keys,
  // a key too long for it): a SHAPE all the same, its keys spelled out, as plain MessagePack
  // readers refuse or rename a `__proto__` map key (FORMAT.md §2). Counted as a reader counts it.
  // Past MAX_SHAPES shapes in one value, or 64 KiB of keys (a marker is an ext 8 or ext 16), it is
  // a map, which Stowage's readers still read.
  private literalShape(obj: Record<string, unknown>, keys: readonly string[]): void {
    const n = keys.length
    this.shapes++
    this.arrayHeader(n + 1)
    this.count(n)
    this.work += n * KEY_LIST_WORK
    const start = this.beginExt()
    this.header(n, 0x90, 16, 0, 0xdc, 0xdd)
    for (const key of keys) {
      // A reader may read a UTF16 key of a key list twice (see keyWork).
      if (!isWellFormed(key)) this.work += EXTENSION_WORK
      this.string(key)
    }
    this.endExt(start, ExtType.SHAPE)
    for (let i = 0; i < n; i++) this.value(obj[keys[i] as string])
  }

  // An object whose keys spell `node` in the trie: a shape reference, a new shape, or a map whose
  // keys come from the trie's cached bytes.
  private shaped(obj: Record<string, unknown>, keys: string[], node: KeyNode, path: KeyNode[]): void {
    const n = keys.length
    if (node.epoch !== this.trie.epoch) {
      node.epoch = this.trie.epoch
      node.seen = 0
      node.id = -1
    }
    if (node.id >= 0) {
      const id = node.id
      this.arrayHeader(n + 1)
      this.ensure(4)
      const buf = this.buf
      if (id < 0x100) {
        buf[this.pos++] = 0xd4
        buf[this.pos++] = ExtType.SHAPE_REF
        buf[this.pos++] = id
      } else {
        buf[this.pos++] = 0xd5
        buf[this.pos++] = ExtType.SHAPE_REF
        buf[this.pos++] = id >>> 8
        buf[this.pos++] = id & 0xff
      }
    } else if (((node.shapePays && (node.seen > 0 || n >= SHAPE_AT_FIRST_SIGHT)) || (node.protoKey && node.markerFits)) && this.shapes < MAX_SHAPES) {
      node.id = this.shapes++
      this.arrayHeader(n + 1)
      this.count(n) // the marker's list of keys, as a reader counts it
      this.work += n * KEY_LIST_WORK
      for (let i = 0; i < n; i++) this.keyWork((path[i] as KeyNode).bytes)
      this.raw(node.shapeMarker())
    } else {
      node.seen++
      this.mapHeader(n)
      for (let i = 0; i < n; i++) {
        this.keyWork((path[i] as KeyNode).bytes)
        this.raw((path[i] as KeyNode).bytes)
        this.value(obj[keys[i] as string])
      }
      return
    }
    for (let i = 0; i < n; i++) this.value(obj[keys[i] as string])
  }

  // DICT: an object whose values share a shape, as its keys and then its values as RECORDS.
  private dict(keys: string[], values: Record<string, unknown>[], shape: string[]): void {
    this.enter(values)
    this.work += EXTENSION_WORK
    const start = this.beginExt()
    this.enter(values)
    this.arrayHeader(2)
    this.enter(keys)
    this.arrayHeader(keys.length)
    for (const key of keys) this.string(key)
    this.depth--
    this.records(values, shape)
    this.depth--
    this.endExt(start, ExtType.DICT)
    this.depth--
  }

  private raw(bytes: Uint8Array): void {
    const n = bytes.length
    this.ensure(n)
    const buf = this.buf
    let p = this.pos
    if (n < 48) for (let i = 0; i < n; i++) buf[p++] = bytes[i] as number
    else {
      buf.set(bytes, p)
      p += n
    }
    this.pos = p
  }

  private arrayHeader(n: number): void {
    this.count(n)
    this.work += OBJECT_WORK
    this.header(n, 0x90, 16, 0, 0xdc, 0xdd)
  }

  private mapHeader(n: number): void {
    this.count(n)
    this.work += OBJECT_WORK
    this.header(n, 0x80, 16, 0, 0xde, 0xdf)
  }

  // The length prefix shared by MessagePack's sized types: a "fix" form for small lengths (when
  // fixLimit > 0), then 8-bit (when code8 > 0), 16-bit and 32-bit lengths.
  private header(len: number, fixBase: number, fixLimit: number, code8: number, code16: number, code32: number): void {
    this.ensure(5)
    const buf = this.buf
    if (len < fixLimit) buf[this.pos++] = fixBase | len
    else if (code8 !== 0 && len < 0x100) {
      buf[this.pos++] = code8
      buf[this.pos++] = len
    } else if (len < 0x10000) {
      buf[this.pos++] = code16
      buf[this.pos++] = len >>> 8
      buf[this.pos++] = len & 0xff
    } else {
      buf[this.pos++] = code32
      this.view.setUint32(this.pos, len)
      this.pos += 4
    }
  }

  private number(v: number): void {
    this.ensure(9)
    const buf = this.buf
    if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
      // An int32 other than -0 (an integer to JavaScript but not to MessagePack: it goes the float way).
      if (v >= 0) {
        if (v < 0x80) buf[this.pos++] = v
        else if (v < 0x100) {
          buf[this.pos++] = 0xcc
          buf[this.pos++] = v
        } else if (v < 0x10000) {
          buf[this.pos++] = 0xcd
          buf[this.pos++] = v >>> 8
          buf[this.pos++] = v & 0xff
        } else {
          buf[this.pos++] = 0xce
          this.view.setUint32(this.pos, v)
          this.pos += 4
        }
      } else if (v >= -32) buf[this.pos++] = v & 0xff
      else if (v >= -128) {
        buf[this.pos++] = 0xd0
        buf[this.pos++] = v & 0xff
      } else if (v >= -32768) {
        buf[this.pos++] = 0xd1
        this.view.setInt16(this.pos, v)
        this.pos += 2
      } else {
        buf[this.pos++] = 0xd2
        this.view.setInt32(this.pos, v)
        this.pos += 4
      }
    } else if (Number.isSafeInteger(v) && v !== 0) {
      if (v > 0 && v < TWO_32) {
        buf[this.pos++] = 0xce
        this.view.setUint32(this.pos, v)
        this.pos += 4
      } else {
        buf[this.pos++] = v > 0 ? 0xcf : 0xd3
        this.view.setInt32(this.pos, Math.floor(v / TWO_32))
        this.view.setUint32(this.pos + 4, v >>> 0)
        this.pos += 8
      }
    } else if (Math.fround(v) === v || v !== v) {
      // Exactly representable in float 32 (NaN, ±Infinity and -0 too): 5 bytes instead of 9.
      buf[this.pos++] = 0xca
      this.view.setFloat32(this.pos, v)
      this.pos += 4
    } else {
      buf[this.pos++] = 0xcb
      this.view.setFloat64(this.pos, v)
      this.pos += 8
    }
  }

  private string(s: string): void {
    const n = s.length
    if (n > 0) this.work += OBJECT_WORK
    if (n < SHORT_STRING) {
      this.ensure(n + 1)
      const buf = this.buf
      const start = this.pos
      let p = start + 1
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i)
        if (c >= 0x80) {
          p = -1
          break
        }
        buf[p++] = c
      }
      if (p >= 0) {
        buf[start] = 0xa0 | n // n < 32: a fixstr
        this.pos = p
        return
      }
    }
    if (n > HUGE_STRING) return this.hugeString(s)
    this.ensure(n * 3 + 5)
    const start = this.pos
    // Most strings are ASCII: reserve the header for n bytes, move the bytes if it must grow.
    const reserved = strHeaderSize(n)
    const written = this.platform.writeUtf8(this.sink, s, start + reserved)
    if (written !== n && !isWellFormed(s)) return this.utf16(s)
    const header = strHeaderSize(written)
    if (header !== reserved) this.buf.copyWithin(start + header, start + reserved, start + reserved + written)
    writeStrHeader(this.buf, start, written)
    this.pos = start + header + written
  }

  // A STRING reference to the next string of the tables (made TEXT when the tables are built, for
  // a string of format 4's text table): its length in UTF-16 code units.
  private tableString(s: string): void {
    const n = s.length
    if (n > this.settings.maxBytes) throw this.tooBig()
    this.work += OBJECT_WORK
    this.ensure(6)
    this.strings.add(s, this.pos)
    const buf = this.buf
    let p = this.pos
    if (n < 0x100) {
      buf[p++] = 0xd4
      buf[p++] = ExtType.STRING
      buf[p++] = n
    } else if (n < 0x10000) {
      buf[p++] = 0xd5
      buf[p++] = ExtType.STRING
      buf[p++] = n >>> 8
      buf[p++] = n & 0xff
    } else {
      buf[p++] = 0xd6
      buf[p++] = ExtType.STRING
      buf[p++] = n >>> 24
      buf[p++] = n >>> 16
      buf[p++] = n >>> 8
      buf[p++] = n & 0xff
    }
    this.pos = p
  }

  private hugeString(s: string): void {
    // Every UTF-16 unit takes at least one byte: a string this long is refused before it is copied.
    if (s.length > this.settings.maxBytes) throw this.tooBig()
    if (!isWellFormed(s)) return this.utf16(s)
    const bytes = new TextEncoder().encode(s)
    this.ensure(5 + bytes.length)
    this.pos = writeStrHeader(this.buf, this.pos, bytes.length)
    this.raw(bytes)
  }

  private utf16(s: string): void {
    this.work += EXTENSION_WORK
    this.raw(utf16Bytes(s))
  }

  private bin(bytes: Uint8Array): void {
    this.work += EXTENSION_WORK
    this.header(bytes.length, 0, 0, 0xc4, 0xc5, 0xc6)
    this.raw(bytes)
  }

  private rawExt(type: number, bytes: Uint8Array, kind?: number): void {
    this.work += EXTENSION_WORK
    const start = this.beginExt()
    this.ensure(bytes.length + 1)
    if (kind !== undefined) this.buf[this.pos++] = kind
    this.raw(bytes)
    this.endExt(start, type)
  }

  // An extension's length is known only after its data is written: reserve an ext 16 header
  // (4 bytes), then write the smallest header that fits, moving the data when that differs.
  private beginExt(): number {
    this.ensure(4)
    const start = this.pos
    this.pos += 4
    return start
  }

  private endExt(start: number, type: number): void {
    const len = this.pos - start - 4
    let header: number
    if (len === 1 || len === 2 || len === 4 || len === 8 || len === 16) header = 2
    else if (len < 0x100) header = 3
    else if (len < 0x10000) header = 4
    else {
      if (len > 0xffffffff) throw limitExceeded('an extension is larger than 4 GiB')
      header = 6
      this.ensure(2)
    }
    const buf = this.buf
    if (header !== 4) {
      buf.copyWithin(start + header, start + 4, this.pos)
      if (this.table) this.strings.shift(start + 4, header - 4)
    }
    this.pos += header - 4
    if (header === 2) buf[start] = len === 1 ? 0xd4 : len === 2 ? 0xd5 : len === 4 ? 0xd6 : len === 8 ? 0xd7 : 0xd8
    else if (header === 3) {
      buf[start] = 0xc7
      buf[start + 1] = len
    } else if (header === 4) {
      buf[start] = 0xc8
      buf[start + 1] = len >>> 8
      buf[start + 2] = len & 0xff
    } else {
      buf[start] = 0xc9
      this.view.setUint32(start + 1, len)
    }
    buf[start + header - 1] = type & 0xff
  }
}
