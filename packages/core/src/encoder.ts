import { StowageErrorCode } from './error-codes.js'
import type { Extension } from './extension.js'
import { ExtType, MIN_DELTA, MIN_RECORDS, TypedArrayKind } from './format.js'
import { StowageError } from './stowage-error.js'

/** Settings an {@link Encoder} needs; validated by the codec before they get here. */
export interface EncoderSettings {
  readonly maxDepth: number
  readonly maxBytes: number
  readonly extensions: readonly Extension[]
}

const textEncoder = new TextEncoder()
// Strings this short are written by a plain loop; longer ones by TextEncoder.encodeInto,
// which also keeps its speed when a Redis client has slowed String.prototype.charCodeAt
// (see BENCHMARKS-ANCHORS.md, "Traps"). Measured crossover on Node 20: about 8 chars.
const SHORT_STRING = 8
// Above this many chars a string is encoded on its own first, so a huge string does not
// reserve three bytes per char in the output buffer.
const HUGE_STRING = 1 << 20
const INITIAL_BUFFER = 64 * 1024
const TWO_32 = 4294967296

/** Thrown inside the encoder when nesting goes past maxDepth; the codec turns it into CYCLE or LIMIT_EXCEEDED. */
export class DepthExceeded {
  constructor(readonly depth: number) {}
}

const hasWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
function isWellFormed(s: string): boolean {
  return hasWellFormed ? (s as string & { isWellFormed(): boolean }).isWellFormed() : !LONE_SURROGATE.test(s)
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The keys shared by every element of `items`, when every element is a plain object with the same
 * keys in the same order (the condition for RECORDS); otherwise undefined.
 */
function sharedShape(items: ArrayLike<unknown>): string[] | undefined {
  const first = items[0]
  if (typeof first !== 'object' || first === null || Array.isArray(first) || !isPlainObject(first)) return undefined
  const keys = Object.keys(first)
  const k = keys.length
  if (k === 0) return undefined
  for (let i = 1; i < items.length; i++) {
    const item = items[i]
    if (typeof item !== 'object' || item === null || Array.isArray(item) || !isPlainObject(item)) return undefined
    let j = 0
    for (const key in item) {
      if (j === k || keys[j] !== key) return undefined
      j++
    }
    if (j !== k) return undefined
  }
  return keys
}

// RECORDS store a block column by column. That drops repeated keys and puts alike values side
// by side, but it moves a row's values apart: when one row holds far more value bytes than key
// bytes (W3: 101 fields of 200 chars), the keys saved are few and deflate loses the repeats inside
// a row (they end up further apart than its 32 KiB window). Judged on the first row, cheaply.
const RECORDS_MAX_VALUE_TO_KEY_RATIO = 16

function worthRecords(first: Record<string, unknown>, keys: readonly string[]): boolean {
  let keyBytes = 0
  let valueBytes = 0
  for (const key of keys) {
    keyBytes += key.length + 1
    const v = first[key]
    valueBytes += typeof v === 'string' ? v.length + 1 : typeof v === 'object' && v !== null ? 16 : 5
  }
  return valueBytes <= keyBytes * RECORDS_MAX_VALUE_TO_KEY_RATIO
}

/** True when `items` are safe integers (not -0) that never change direction: DELTA pays for them. */
function isMonotonicIntegers(items: readonly unknown[]): boolean {
  let prev = items[0]
  if (typeof prev !== 'number' || !Number.isSafeInteger(prev) || Object.is(prev, -0)) return false
  let direction = 0
  for (let i = 1; i < items.length; i++) {
    const v = items[i]
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || Object.is(v, -0)) return false
    const d = v - (prev as number)
    if (d > 0) {
      if (direction < 0) return false
      direction = 1
    } else if (d < 0) {
      if (direction > 0) return false
      direction = -1
    }
    if (!Number.isSafeInteger(d)) return false
    prev = v
  }
  return true
}

function typedArrayKind(value: ArrayBufferView): number | undefined {
  const name = (value as { [Symbol.toStringTag]?: string })[Symbol.toStringTag]
  return name === undefined ? undefined : (TypedArrayKind as Record<string, number>)[name]
}

/**
 * Writes one JavaScript value as MessagePack with Stowage's extensions. One instance is reused
 * across calls (its buffer grows and is kept), so it is not re-entrant: the codec gives a nested
 * call (an extension that encodes) its own instance.
 */
export class Encoder {
  private buf = new Uint8Array(INITIAL_BUFFER)
  private view = new DataView(this.buf.buffer)
  private pos = 0
  busy = false

  constructor(private readonly settings: EncoderSettings) {}

  /**
   * Encodes `value`; the result is a view of the internal buffer, valid until the next call.
   * @throws {StowageError} UNSUPPORTED_TYPE, LIMIT_EXCEEDED; {@link DepthExceeded} for the codec to classify.
   */
  encode(value: unknown): Uint8Array {
    this.pos = 0
    this.value(value, 0)
    if (this.pos > this.settings.maxBytes) throw this.tooBig()
    return this.buf.subarray(0, this.pos)
  }

  /** Drops an oversized buffer after a huge value, so one big write does not pin its memory forever. */
  trim(): void {
    if (this.buf.length > 4 * INITIAL_BUFFER * 16) {
      this.buf = new Uint8Array(INITIAL_BUFFER)
      this.view = new DataView(this.buf.buffer)
    }
  }

  private ensure(extra: number): void {
    const need = this.pos + extra
    if (need <= this.buf.length) return
    // Headroom for the largest header reserved ahead of its data (a 6-byte ext32, a 5-byte str32).
    if (need > this.settings.maxBytes + 16) throw this.tooBig()
    let size = this.buf.length * 2
    while (size < need) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.pos))
    this.buf = next
    this.view = new DataView(next.buffer)
  }

  private tooBig(): StowageError {
    return new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `the value encodes to more than maxBytes (${this.settings.maxBytes} bytes)`)
  }

  private value(v: unknown, depth: number): void {
    switch (typeof v) {
      case 'string':
        return this.string(v)
      case 'number':
        return this.number(v)
      case 'boolean':
        this.ensure(1)
        this.buf[this.pos++] = v ? 0xc3 : 0xc2
        return
      case 'undefined':
        this.ensure(3)
        this.buf[this.pos++] = 0xd4
        this.buf[this.pos++] = ExtType.UNDEFINED
        this.buf[this.pos++] = 0
        return
      case 'bigint':
        return this.bigint(v)
      case 'object':
        if (v === null) {
          this.ensure(1)
          this.buf[this.pos++] = 0xc0
          return
        }
        return this.object(v, depth)
      default:
        throw new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `cannot store a value of type ${typeof v}`)
    }
  }

  private object(v: object, depth: number): void {
    if (depth >= this.settings.maxDepth) throw new DepthExceeded(depth)
    if (Array.isArray(v)) return this.array(v, depth)
    if (isPlainObject(v)) return this.map(v as Record<string, unknown>, depth)
    for (const ext of this.settings.extensions) {
      if (v instanceof ext.class) {
        const start = this.beginExt()
        this.value(ext.encode(v), depth + 1)
        return this.endExt(start, ext.type)
      }
    }
    if (v instanceof Uint8Array) return this.bin(v)
    if (v instanceof Date) return this.date(v)
    if (v instanceof Map) {
      const start = this.beginExt()
      this.arrayHeader(2)
      this.array([...v.keys()], depth)
      this.array([...v.values()], depth)
      return this.endExt(start, ExtType.MAP)
    }
    if (v instanceof Set) {
      const start = this.beginExt()
      this.array([...v], depth)
      return this.endExt(start, ExtType.SET)
    }
    if (ArrayBuffer.isView(v)) {
      const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
      if (v instanceof DataView) return this.rawExt(ExtType.DATA_VIEW, undefined, bytes)
      const kind = typedArrayKind(v)
      if (kind !== undefined) return this.rawExt(ExtType.TYPED_ARRAY, kind, bytes)
    }
    if (v instanceof ArrayBuffer) return this.rawExt(ExtType.ARRAY_BUFFER, undefined, new Uint8Array(v))
    if (v instanceof RegExp) {
      const start = this.beginExt()
      this.arrayHeader(2)
      this.string(v.source)
      this.string(v.flags)
      return this.endExt(start, ExtType.REGEXP)
    }
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name
    throw new StowageError(
      StowageErrorCode.UNSUPPORTED_TYPE,
      `cannot store an instance of ${typeof name === 'string' && name ? name : 'an unknown class'}: register an extension for it`,
    )
  }

  private array(items: readonly unknown[], depth: number): void {
    const n = items.length
    if (n >= MIN_RECORDS) {
      const first = items[0]
      if (typeof first === 'object') {
        const keys = sharedShape(items)
        if (keys !== undefined && worthRecords(first as Record<string, unknown>, keys)) {
          return this.records(items as Record<string, unknown>[], keys, depth)
        }
      } else if (typeof first === 'number' && n >= MIN_DELTA && isMonotonicIntegers(items)) {
        return this.delta(items as number[])
      }
    }
    this.arrayHeader(n)
    for (let i = 0; i < n; i++) this.value(items[i], depth + 1)
  }

  // RECORDS: the keys once, then one column per key. Columns are arrays again, so a column of
  // same-shaped objects becomes nested RECORDS and a sorted id or timestamp column becomes DELTA.
  private records(rows: readonly Record<string, unknown>[], keys: readonly string[], depth: number): void {
    if (depth + 1 >= this.settings.maxDepth) throw new DepthExceeded(depth + 1)
    const n = rows.length
    const k = keys.length
    const start = this.beginExt()
    this.arrayHeader(2 + k)
    this.number(n)
    this.arrayHeader(k)
    for (let j = 0; j < k; j++) this.string(keys[j] as string)
    const column = new Array<unknown>(n)
    for (let j = 0; j < k; j++) {
      const key = keys[j] as string
      for (let i = 0; i < n; i++) column[i] = (rows[i] as Record<string, unknown>)[key]
      this.array(column, depth + 1)
    }
    this.endExt(start, ExtType.RECORDS)
  }

  private delta(items: readonly number[]): void {
    const start = this.beginExt()
    const n = items.length
    this.arrayHeader(n)
    let prev = items[0] as number
    this.number(prev)
    for (let i = 1; i < n; i++) {
      const v = items[i] as number
      this.number(v - prev)
      prev = v
    }
    this.endExt(start, ExtType.DELTA)
  }

  private map(obj: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(obj)
    const n = keys.length
    if (n >= MIN_RECORDS) {
      const first = obj[keys[0] as string]
      if (typeof first === 'object' && first !== null && !Array.isArray(first)) {
        const values = keys.map((key) => obj[key])
        const shape = sharedShape(values)
        if (shape !== undefined && worthRecords(first as Record<string, unknown>, shape)) {
          const start = this.beginExt()
          this.arrayHeader(2)
          this.arrayHeader(n)
          for (let i = 0; i < n; i++) this.string(keys[i] as string)
          this.records(values as Record<string, unknown>[], shape, depth)
          return this.endExt(start, ExtType.DICT)
        }
      }
    }
    this.header(n, 0x80, 16, 0, 0xde, 0xdf)
    for (let i = 0; i < n; i++) {
      const key = keys[i] as string
      this.string(key)
      this.value(obj[key], depth + 1)
    }
  }

  private arrayHeader(n: number): void {
    this.header(n, 0x90, 16, 0, 0xdc, 0xdd)
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
      this.view.setUint16(this.pos, len)
      this.pos += 2
    } else {
      buf[this.pos++] = code32
      this.view.setUint32(this.pos, len)
      this.pos += 4
    }
  }

  private number(v: number): void {
    this.ensure(9)
    const buf = this.buf
    // -0 is an integer to JavaScript but not to MessagePack: it goes the float way.
    const negativeZero = v === 0 && 1 / v < 0
    if ((v | 0) === v && !negativeZero) {
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
    } else if (Number.isSafeInteger(v) && !negativeZero) {
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
    } else if (Math.fround(v) === v) {
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
    if (n < SHORT_STRING) {
      this.ensure(n + 1)
      const buf = this.buf
      const start = this.pos
      buf[start] = 0xa0 | n
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
        this.pos = p
        return
      }
    }
    if (!isWellFormed(s)) return this.utf16(s)
    if (n > HUGE_STRING) {
      const bytes = textEncoder.encode(s)
      this.strHeader(bytes.length)
      this.ensure(bytes.length)
      this.buf.set(bytes, this.pos)
      this.pos += bytes.length
      return
    }
    const max = n * 3
    this.ensure(max + 5)
    const reserved = max < 32 ? 1 : max < 0x100 ? 2 : max < 0x10000 ? 3 : 5
    const start = this.pos
    const written = textEncoder.encodeInto(s, this.buf.subarray(start + reserved, start + reserved + max)).written
    const header = written < 32 ? 1 : written < 0x100 ? 2 : written < 0x10000 ? 3 : 5
    if (header !== reserved) this.buf.copyWithin(start + header, start + reserved, start + reserved + written)
    this.strHeader(written)
    this.pos = start + header + written
  }

  private strHeader(len: number): void {
    this.header(len, 0xa0, 32, 0xd9, 0xda, 0xdb)
  }

  // A string with lone surrogates has no UTF-8 form; its UTF-16 code units are kept instead.
  private utf16(s: string): void {
    const start = this.beginExt()
    this.ensure(s.length * 2)
    for (let i = 0; i < s.length; i++) {
      this.view.setUint16(this.pos, s.charCodeAt(i), true)
      this.pos += 2
    }
    this.endExt(start, ExtType.UTF16)
  }

  private bin(bytes: Uint8Array): void {
    this.header(bytes.length, 0, 0, 0xc4, 0xc5, 0xc6)
    this.ensure(bytes.length)
    this.buf.set(bytes, this.pos)
    this.pos += bytes.length
  }

  private bigint(v: bigint): void {
    const negative = v < 0n
    let hex = (negative ? -v : v).toString(16)
    if (v === 0n) hex = ''
    else if (hex.length & 1) hex = '0' + hex
    const start = this.beginExt()
    this.ensure(1 + hex.length / 2)
    this.buf[this.pos++] = negative ? 1 : 0
    for (let i = 0; i < hex.length; i += 2) this.buf[this.pos++] = parseInt(hex.slice(i, i + 2), 16)
    this.endExt(start, ExtType.BIGINT)
  }

  // Valid dates use MessagePack's standard timestamp extension, so any msgpack library reads them.
  private date(d: Date): void {
    const ms = d.getTime()
    this.ensure(15)
    if (Number.isNaN(ms)) {
      this.buf[this.pos++] = 0xc7
      this.buf[this.pos++] = 0
      this.buf[this.pos++] = ExtType.INVALID_DATE
      return
    }
    const sec = Math.floor(ms / 1000)
    const nsec = (ms - sec * 1000) * 1e6
    if (sec >= 0 && sec < 0x400000000) {
      if (nsec === 0 && sec < TWO_32) {
        this.buf[this.pos++] = 0xd6
        this.buf[this.pos++] = 0xff
        this.view.setUint32(this.pos, sec)
        this.pos += 4
      } else {
        this.buf[this.pos++] = 0xd7
        this.buf[this.pos++] = 0xff
        // 30 bits of nanoseconds, then 34 bits of seconds
        this.view.setUint32(this.pos, nsec * 4 + Math.floor(sec / TWO_32))
        this.view.setUint32(this.pos + 4, sec >>> 0)
        this.pos += 8
      }
    } else {
      this.buf[this.pos++] = 0xc7
      this.buf[this.pos++] = 12
      this.buf[this.pos++] = 0xff
      this.view.setUint32(this.pos, nsec)
      this.view.setInt32(this.pos + 4, Math.floor(sec / TWO_32))
      this.view.setUint32(this.pos + 8, sec >>> 0)
      this.pos += 12
    }
  }

  private rawExt(type: number, kind: number | undefined, bytes: Uint8Array): void {
    const start = this.beginExt()
    this.ensure(bytes.length + 1)
    if (kind !== undefined) this.buf[this.pos++] = kind
    this.buf.set(bytes, this.pos)
    this.pos += bytes.length
    this.endExt(start, type)
  }

  // An extension's length is known only after its data is written: reserve the 6-byte ext32
  // header, then shrink it to fixext/ext8/ext16 (moving the data) when the data is small.
  private beginExt(): number {
    this.ensure(6)
    const start = this.pos
    this.pos += 6
    return start
  }

  private endExt(start: number, type: number): void {
    const len = this.pos - start - 6
    const buf = this.buf
    let header: number
    if (len === 1 || len === 2 || len === 4 || len === 8 || len === 16) {
      header = 2
      buf[start] = len === 1 ? 0xd4 : len === 2 ? 0xd5 : len === 4 ? 0xd6 : len === 8 ? 0xd7 : 0xd8
    } else if (len < 0x100) {
      header = 3
      buf[start] = 0xc7
      buf[start + 1] = len
    } else if (len < 0x10000) {
      header = 4
      buf[start] = 0xc8
      this.view.setUint16(start + 1, len)
    } else {
      if (len > 0xffffffff) throw new StowageError(StowageErrorCode.LIMIT_EXCEEDED, 'an extension is larger than 4 GiB')
      header = 6
      buf[start] = 0xc9
      this.view.setUint32(start + 1, len)
    }
    buf[start + header - 1] = type & 0xff
    if (header !== 6) buf.copyWithin(start + header, start + 6, this.pos)
    this.pos -= 6 - header
  }
}
