// The decoder's memory of object shapes (key sequences), shared by every decoder and kept across
// calls: a SHAPE marker's bytes are looked up here before its keys are decoded, and each shape
// builds its objects. A keyed store per property (`o[key] = v`) is what JSON-like decoders usually
// do; for many shapes V8 then goes through its megamorphic stub cache on every property, ~20 ns
// each. A shape used often enough gets a builder compiled from an object literal instead, which V8
// allocates at its final size with the final hidden class: ~5× faster (apps/bench/RESULTS.md,
// "What each decoder change bought"). Where code generation is not allowed (a Content Security
// Policy without 'unsafe-eval', Cloudflare Workers), objects are built by keyed stores.

/** Reads the next value of the payload. */
export type ReadNext = () => unknown
/**
 * How many more shapes one decode may compile. Compiling costs ~100–300 µs a shape: 500 shapes
 * used 8 times each in a 46 kB envelope once cost 80 ms more than used 7 times (issue 20).
 */
export interface CompileAllowance {
  left: number
}

/** Shapes one decode may compile at most; the others are compiled by later decodes that use them. */
export const MAX_COMPILES_PER_DECODE = 8
type FromReader = (read: ReadNext) => Record<string, unknown>
type FromColumns = (columns: readonly (readonly unknown[])[], from: number, count: number, out: unknown[]) => void

// A shape is compiled after this many objects were built with it (counted across calls), so
// one-off shapes cost no compilation.
const COMPILE_AFTER = 8
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

  constructor(readonly keys: readonly string[]) {
    this.hostile = keys.includes('__proto__')
    this.compilable = !this.hostile && keys.length <= MAX_COMPILED_KEYS && keys.every((k) => k.length <= MAX_COMPILED_KEY_LENGTH)
  }

  /** Builds one object, reading its values in key order with `read`; may compile the shape while `allowance` lasts. */
  read(read: ReadNext, allowance: CompileAllowance): Record<string, unknown> {
    if (this.fromReader !== undefined) return this.fromReader(read)
    if (this.compilable && ++this.uses >= COMPILE_AFTER && allowance.left > 0) {
      allowance.left--
      this.fromReader = compile<FromReader>('r', `return {${this.keys.map((k) => `${JSON.stringify(k)}:r()`).join(',')}}`)
      if (this.fromReader !== undefined) return this.fromReader(read)
    }
    const keys = this.keys
    const out: Record<string, unknown> = {}
    if (this.hostile) {
      for (let j = 0; j < keys.length; j++) define(out, keys[j] as string, read())
    } else {
      for (let j = 0; j < keys.length; j++) out[keys[j] as string] = read()
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

/** `obj[key] = value` that stores `__proto__` as an own data property instead of replacing the prototype. */
export function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
  else obj[key] = value
}

const book = new Map<string, Shape>()

/**
 * The shape whose keys are written as `signature` (the keys' MessagePack bytes, one code unit per
 * byte); `decodeKeys` is called only when the book does not know it yet.
 */
export function shapeFor(signature: string, decodeKeys: () => readonly string[]): Shape {
  let shape = book.get(signature)
  if (shape === undefined) {
    shape = new Shape(decodeKeys())
    if (book.size >= MAX_SHAPES) book.clear()
    book.set(signature, shape)
  }
  return shape
}
