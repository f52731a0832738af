import { decimalDigits, printsWhole } from './bigint-size.js'

/**
 * The size of a value as the JSON an application would most likely store instead: `Map` as an
 * object (or an array of entries when a key is not a string), `Set` and typed arrays as arrays,
 * `BigInt` as a string, `Date` as its ISO string, binary as base64, `undefined` left out. A large
 * BigInt is counted by its digits, never written out in decimal (see bigint-size.ts).
 * @param value - a decoded value.
 * @returns UTF-8 bytes of that JSON.
 */
export function equivalentJsonBytes(value: unknown): number {
  let uncounted = 0
  const text = JSON.stringify(value, function replacer(this: unknown, _key: string, v: unknown) {
    if (typeof v === 'bigint') {
      if (printsWhole(v)) return v.toString()
      uncounted += decimalDigits(v) + (v < 0n ? 1 : 0)
      return ''
    }
    if (v instanceof Map) return [...v.keys()].every((k) => typeof k === 'string') ? Object.fromEntries(v) : [...v]
    if (v instanceof Set) return [...v]
    if (v instanceof ArrayBuffer) return Buffer.from(v).toString('base64')
    if (v instanceof Uint8Array) return Buffer.from(v).toString('base64')
    if (v instanceof DataView) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')
    if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number | bigint>, (n) => (typeof n === 'bigint' ? n.toString() : n))
    if (v instanceof RegExp) return v.toString()
    return v
  })
  return text === undefined ? 0 : Buffer.byteLength(text) + uncounted
}
