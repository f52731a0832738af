// Binary values. Uint8Array is MessagePack bin; other typed arrays are ExtType.TYPED_ARRAY (a kind
// byte, then the elements little-endian, as in memory on every common CPU); ArrayBuffer and
// DataView have extensions of their own whose data is the bytes.
import { corrupt, unsupportedType } from '../../errors/make.js'
import { TypedArrayKind } from '../format.js'

type TypedArrayConstructor = new (buffer: ArrayBuffer) => ArrayBufferView
const float16 = (globalThis as { Float16Array?: TypedArrayConstructor }).Float16Array

const CONSTRUCTORS: Array<[TypedArrayConstructor | undefined, number, number]> = [
  [Int8Array, TypedArrayKind.Int8Array, 1],
  [Uint8ClampedArray, TypedArrayKind.Uint8ClampedArray, 1],
  [Int16Array, TypedArrayKind.Int16Array, 2],
  [Uint16Array, TypedArrayKind.Uint16Array, 2],
  [Int32Array, TypedArrayKind.Int32Array, 4],
  [Uint32Array, TypedArrayKind.Uint32Array, 4],
  [Float32Array, TypedArrayKind.Float32Array, 4],
  [Float64Array, TypedArrayKind.Float64Array, 8],
  [BigInt64Array, TypedArrayKind.BigInt64Array, 8],
  [BigUint64Array, TypedArrayKind.BigUint64Array, 8],
  [float16, TypedArrayKind.Float16Array, 2],
]
const KIND_BY_PROTOTYPE = new Map<object, number>()
const BY_KIND: Array<[TypedArrayConstructor, number] | undefined> = []
for (const [Ctor, kind, size] of CONSTRUCTORS) {
  if (Ctor === undefined) continue
  KIND_BY_PROTOTYPE.set(Ctor.prototype, kind)
  BY_KIND[kind] = [Ctor, size]
}

/** The TYPED_ARRAY kind byte for an object with this exact prototype (subclasses have none), or undefined. */
export function typedArrayKind(prototype: object | null): number | undefined {
  return prototype === null ? undefined : KIND_BY_PROTOTYPE.get(prototype)
}

/**
 * Rebuilds a typed array from TYPED_ARRAY data (`length` bytes at `at`: kind, then elements).
 * The result owns a fresh, aligned buffer.
 * @throws {StowageError} UNSUPPORTED_TYPE for a kind this runtime lacks (Float16Array); CORRUPT for a bad length.
 */
export function readTypedArray(bytes: Uint8Array, at: number, length: number): ArrayBufferView {
  if (length < 1) throw corrupt('bad typed array extension')
  const kind = bytes[at] as number
  const entry = BY_KIND[kind]
  if (entry === undefined) throw unsupportedType(`typed array kind ${kind} is not available here`)
  const [Ctor, size] = entry
  if ((length - 1) % size !== 0) throw corrupt('typed array length is not a multiple of its element size')
  return new Ctor(bytes.slice(at + 1, at + length).buffer)
}
