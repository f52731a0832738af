// The decoder's memory of object shapes (key sequences), shared by every decoder and kept across
// calls: a SHAPE marker's bytes are looked up here before its keys are decoded, and each shape
// builds its objects. A keyed store per property (`o[key] = v`) is what JSON-like decoders usually
// do; for many shapes V8 then goes through its megamorphic stub cache on every property, ~20 ns
// each. A shape used often enough gets a builder compiled from an object literal instead, which V8
// allocates at its final size with the final hidden class: ~5× faster (apps/bench/RESULTS.md,
// "What each decoder change bought"). Where code generation is not allowed (a Content Security
// Policy without 'unsafe-eval', Cloudflare Workers), objects are built by keyed stores.

/**
 * What a shape's objects take their values from, one `value()` a key, in key order: the decoder
 * itself. A compiled builder calls it directly, not through a closure: cold, as after a reload, a
 * second call per value is a cost of its own.
 */
export interface ValueSource {
  value(): unknown
}
/**
 * How many more shapes one decode may compile. Compiling costs ~100–300 µs a shape: 500 shapes
 * used 8 times each in a 46 kB envelope once cost 80 ms more than used 7 times (issue 20).
 */
export interface CompileAllowance {
  left: number
}

/** Shapes one decode may compile at most; the others are compiled by later decodes that use them. */
export const MAX_COMPILES_PER_DECODE = 8
type FromReader = (source: ValueSource) => Record<string, unknown>
type FromColumns = (columns: readonly (readonly unknown[])[], from: number, count: number, out: unknown[]) => void

/**
 * A shape is compiled after this many objects were built with it (counted across calls). In a page
 * that has just loaded, a compile costs ~60 µs of `new Function` and as much again at the
 * builder's first calls, which run cold: ~100–150 objects' worth of keyed stores. Restoring 5,000
 * webhook queries compiled 320 shapes after 8 uses each (19 ms in `new Function` alone); after 128
 * uses the restore took 370 against 400 ms (medians of 9 new browsers), the small queries 238
 * against 249 (apps/bench/RESULTS.md, "When a shape is compiled").
 */
export const COMPILE_AFTER = 128
// Shapes with more keys, or longer keys, are not compiled: the source text would be large for a
// rare case.
const MAX_COMPILED_KEYS = 128
const MAX_COMPILED_KEY_LENGTH = 64
// The book is emptied when it reaches this many shapes, so hostile or ever-changing keys cannot grow it without bound.
const MAX_SHAPES = 2048

let codegen: boolean | undefined

function compile<F>(params: string, body: string): F | undefined {
  if (codegen === false) return undefined
  try {
    const f = new Function(params, body) as F
    codegen = true
    return f
  } catch {
    // EvalError under a strict Content Security Policy: stop trying.
    codegen = false
    return undefined
  }
}

/** One key sequence and how to build objects with it. */
export class Shape {
  /** Whether a key is `__proto__`, which must become an own property (a literal or store would set the prototype). */
  private readonly hostile: boolean
  private readonly compilable: boolean
  private uses = 0
  private fromReader: FromReader | undefined
  private fromColumns: FromColumns | undefined

  /**
   * The signature, kept as its length, its whole four-byte words (each read little-endian) and its
   * last 0–3 bytes as one number.
   */
  private readonly size: number
  private readonly words: Int32Array | undefined
  private readonly tail: number
  /** The next shape of the book's bucket that holds this one. */
  next: Shape | undefined
  /**
   * Whether the signature is a MessagePack array of str keys only: bytes that, met again, need no
   * second look (a key written as a UTF16 extension is decoded, and charged as work, every time).
   */
  readonly plain: boolean

  /** `signature`: the bytes the keys were read from (their MessagePack array), where the book keeps the shape. */
  constructor(
    readonly keys: readonly string[],
    signature?: Uint8Array,
  ) {
    this.size = signature?.length ?? -1
    this.words = signature === undefined ? undefined : littleEndianWords(signature)
    this.tail = signature === undefined ? 0 : tailOf(signature, 0, signature.length)
    this.plain = signature !== undefined && strKeysOnly(signature, keys.length)
    this.hostile = keys.includes('__proto__')
    this.compilable = !this.hostile && keys.length <= MAX_COMPILED_KEYS && keys.every((k) => k.length <= MAX_COMPILED_KEY_LENGTH)
  }

  /**
   * Whether `bytes[start..end)` are this shape's signature; `view` is a DataView of `bytes` (same
   * offsets). Compared four bytes a step: byte by byte, the comparisons of the webhook payloads'
   * ~300-byte key lists cost as much in Chromium as the strings they replace.
   */
  matches(view: DataView, bytes: Uint8Array, start: number, end: number): boolean {
    const words = this.words
    if (words === undefined || this.size !== end - start) return false
    for (let w = 0; w < words.length; w++) if (view.getInt32(start + 4 * w, true) !== words[w]) return false
    return tailOf(bytes, start, end) === this.tail
  }

  /** Builds one object, its values taken from `source` in key order; may compile the shape while `allowance` lasts. */
  read(source: ValueSource, allowance: CompileAllowance): Record<string, unknown> {
    if (this.fromReader !== undefined) return this.fromReader(source)
    if (this.compilable && ++this.uses >= COMPILE_AFTER && allowance.left > 0) {
      allowance.left--
      this.fromReader = compile<FromReader>('d', `return {${this.keys.map((k) => `${JSON.stringify(k)}:d.value()`).join(',')}}`)
      if (this.fromReader !== undefined) return this.fromReader(source)
    }
    const keys = this.keys
    const out: Record<string, unknown> = {}
    if (this.hostile) {
      for (let j = 0; j < keys.length; j++) define(out, keys[j] as string, source.value())
    } else {
      for (let j = 0; j < keys.length; j++) out[keys[j] as string] = source.value()
    }
    return out
  }

  /**
   * Builds the `count` rows of RECORDS into `out[0..count)` from their columns (one per key, each
   * holding at least `count` values); may compile the shape while `allowance` lasts. A compiled
   * shape builds the whole table in one loop of its own: the columns are looked up once, and no
   * call per row goes through a call site that every shape shares.
   */
  rows(columns: readonly (readonly unknown[])[], count: number, out: unknown[], allowance: CompileAllowance): unknown[] {
    let i = 0
    if (this.fromColumns === undefined) {
      const keys = this.keys
      for (; i < count; i++) {
        if (this.compilable && ++this.uses >= COMPILE_AFTER && allowance.left > 0) {
          allowance.left--
          const load = keys.map((_, j) => `const c${j}=c[${j}];`).join('')
          const literal = keys.map((k, j) => `${JSON.stringify(k)}:c${j}[i]`).join(',')
          this.fromColumns = compile<FromColumns>('c,i,n,o', `${load}for(;i<n;i++)o[i]={${literal}};`)
          if (this.fromColumns !== undefined) break
        }
        const row: Record<string, unknown> = {}
        for (let j = 0; j < keys.length; j++) {
          if (this.hostile) define(row, keys[j] as string, (columns[j] as unknown[])[i])
          else row[keys[j] as string] = (columns[j] as unknown[])[i]
        }
        out[i] = row
      }
    }
    if (this.fromColumns !== undefined) this.fromColumns(columns, i, count, out)
    return out
  }
}

// Whether `bytes` are exactly a MessagePack array header of `k` and `k` str values.
function strKeysOnly(bytes: Uint8Array, k: number): boolean {
  const head = bytes[0] as number
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = (head & 0xf0) === 0x90 ? 1 : head === 0xdc ? 3 : head === 0xdd ? 5 : -1
  if (at < 0 || at > bytes.length) return false
  if ((head === 0xdc ? view.getUint16(1) : head === 0xdd ? view.getUint32(1) : head & 0x0f) !== k) return false
  for (let i = 0; i < k; i++) {
    if (at >= bytes.length) return false
    const b = bytes[at] as number
    if (b >= 0xa0 && b < 0xc0) at += 1 + (b & 0x1f)
    else if (b === 0xd9) at += 2 + (bytes[at + 1] as number)
    else if (b === 0xda) at += 3 + (((bytes[at + 1] as number) << 8) | (bytes[at + 2] as number))
    else if (b === 0xdb) at += at + 5 <= bytes.length ? 5 + view.getUint32(at + 1) : 5
    else return false
  }
  return at === bytes.length
}

// The last (end - start) % 4 bytes of bytes[start..end), as one number.
function tailOf(bytes: Uint8Array, start: number, end: number): number {
  let tail = 0
  for (let i = start + ((end - start) & ~3); i < end; i++) tail = (tail << 8) | (bytes[i] as number)
  return tail
}

// The whole four-byte words of `bytes`, each read little-endian (as `matches` reads the source).
function littleEndianWords(bytes: Uint8Array): Int32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const words = new Int32Array(bytes.length >> 2)
  for (let w = 0; w < words.length; w++) words[w] = view.getInt32(4 * w, true)
  return words
}

/** `obj[key] = value` that stores `__proto__` as an own data property instead of replacing the prototype. */
export function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
  else obj[key] = value
}

// The book: shapes by a hash of their key lists' bytes, each bucket a short chain compared byte for
// byte. Looking a shape up by its bytes, instead of by a string made of them, saves a string per
// SHAPE marker: in Chromium that string (a TextDecoder call) was a quarter of decoding the GitHub
// webhook payloads.
const book = new Map<number, Shape>()
let shapes = 0
// A chain stops growing at this length: a shape whose bucket is full is built but not kept, so
// key lists made to collide cost at most this many comparisons each.
const MAX_CHAIN = 8

/**
 * The shape the book keeps for exactly the bytes `bytes[start..end)`, or `undefined` (`view`: a
 * DataView of `bytes`). Nothing is decoded or added.
 */
export function knownShape(view: DataView, bytes: Uint8Array, start: number, end: number): Shape | undefined {
  for (let s = book.get(hashBytes(bytes, start, end)); s !== undefined; s = s.next) if (s.matches(view, bytes, start, end)) return s
  return undefined
}

/**
 * The shape whose keys are written as `bytes[start..end)` (their MessagePack array; `view`: a
 * DataView of `bytes`); `decodeKeys` is called only when the book does not know these bytes yet.
 */
export function shapeFor(view: DataView, bytes: Uint8Array, start: number, end: number, decodeKeys: () => readonly string[]): Shape {
  const h = hashBytes(bytes, start, end)
  const first = book.get(h)
  let chain = 0
  for (let s = first; s !== undefined; s = s.next, chain++) if (s.matches(view, bytes, start, end)) return s
  const shape = new Shape(decodeKeys(), bytes.slice(start, end))
  if (chain >= MAX_CHAIN) return shape
  if (shapes >= MAX_SHAPES) {
    book.clear()
    shapes = 0
  } else shape.next = first
  book.set(h, shape)
  shapes++
  return shape
}

// A hash of some of the bytes: all of them up to 32, else about 32 spread over the list and the
// last one, mixed with the length. Hashing every byte cost as much as the string it replaces (key
// lists average ~300 bytes in the webhook payloads); shapes the samples cannot tell apart share a
// bucket, where they are compared byte for byte.
/** @internal The book's hash of `bytes[start..end)` (exported for tests). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  const n = end - start
  const step = n <= 32 ? 1 : n >>> 5
  let h = Math.imul(n, 0x9e3779b1) ^ 0x811c9dc5
  for (let i = start; i < end; i += step) h = Math.imul(h ^ (bytes[i] as number), 0x01000193)
  return Math.imul(h ^ (bytes[end - 1] ?? 0), 0x01000193)
}
