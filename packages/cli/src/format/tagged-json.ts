// Decoded values as JSON. Strict mode refuses what JSON cannot hold exactly and names where it
// sits; tagged mode writes it as `{ "$stowage": type, … }` objects that `fromTaggedJson` reads
// back, so `decode --tagged | encode --tagged` round-trips every type the default codec knows.
import { StowageError, StowageErrorCode } from '@stowage/core'
import { bigintSize, printsWhole } from './bigint-size.js'

// What toISOString writes, and the ISO 8601 forms Date reads alike everywhere: a date, or a date
// and time with `Z` or an offset (seconds and fractions optional). A time without either would be
// read in the local time zone of whoever runs the command: refused.
const ISO_DATE = /^(?:[+-]\d{6}|\d{4})-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/

/** The key that marks a tagged value. */
export const TAG = '$stowage'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

const TYPED_ARRAYS = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
} as const

function base64(view: ArrayBufferView | ArrayBuffer): string {
  const bytes = view instanceof ArrayBuffer ? new Uint8Array(view) : new Uint8Array(view.buffer, view.byteOffset, view.byteLength)
  return Buffer.from(bytes).toString('base64')
}

function unsupported(path: string, what: string): StowageError {
  return new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `${path} is ${what}, which JSON cannot hold; decode --tagged writes it as a {"${TAG}": …} object`)
}

function typeName(value: object): string {
  return value.constructor?.name ?? 'an object without a prototype'
}

/**
 * A decoded value as JSON data.
 * @param value - a value from `decode`.
 * @param tagged - write what JSON cannot hold as tagged objects (else refuse it).
 * @param path - where `value` sits, for messages. Defaults to `$`.
 * @param bigints - `whole`: every BigInt with all its digits; `partial` (tagged only, for
 *   inspect): a BigInt of more than 1,024 bits as `{"$stowage":"bigint","bits","digits","hex","partial":true}`,
 *   never written out in decimal (bigint-size.ts). Defaults to `whole`.
 * @returns JSON data (`JSON.stringify` writes it exactly).
 * @throws {StowageError} UNSUPPORTED_TYPE, in strict mode, at the first value JSON cannot hold (its path in the message).
 */
export function toJsonData(value: unknown, tagged: boolean, path = '$', bigints: 'whole' | 'partial' = 'whole'): Json {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value
  if (typeof value === 'number') {
    if (Number.isFinite(value) && !Object.is(value, -0)) return value
    if (!tagged) throw unsupported(path, `the number ${Object.is(value, -0) ? '-0' : String(value)}`)
    return { [TAG]: 'number', value: Object.is(value, -0) ? '-0' : String(value) }
  }
  if (value === undefined) {
    if (!tagged) throw unsupported(path, 'undefined')
    return { [TAG]: 'undefined' }
  }
  if (typeof value === 'bigint') {
    if (!tagged) throw unsupported(path, printsWhole(value) ? `the BigInt ${value}n` : `a BigInt of ${bigintSize(value).bits} bits`)
    if (bigints === 'partial' && !printsWhole(value)) return { [TAG]: 'bigint', ...bigintSize(value), partial: true }
    return { [TAG]: 'bigint', value: value.toString() }
  }
  if (typeof value !== 'object') throw unsupported(path, typeof value)
  if (Array.isArray(value)) return value.map((item, i) => toJsonData(item, tagged, `${path}[${i}]`, bigints))
  const proto = Object.getPrototypeOf(value) as unknown
  if (proto === Object.prototype || proto === null) {
    const out: { [key: string]: Json } = {}
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, { value: toJsonData((value as Record<string, unknown>)[key], tagged, `${path}.${key}`, bigints), enumerable: true, writable: true, configurable: true })
    }
    return tagged && Object.hasOwn(value, TAG) ? { [TAG]: 'object', value: out } : out
  }
  if (!tagged) throw unsupported(path, `a ${typeName(value)}`)
  if (value instanceof Date) return { [TAG]: 'Date', value: Number.isNaN(value.getTime()) ? null : value.toISOString() }
  if (value instanceof Map) return { [TAG]: 'Map', value: [...value].map(([k, v], i) => [toJsonData(k, true, `${path}<key ${i}>`, bigints), toJsonData(v, true, `${path}<value ${i}>`, bigints)]) }
  if (value instanceof Set) return { [TAG]: 'Set', value: [...value].map((v, i) => toJsonData(v, true, `${path}<member ${i}>`, bigints)) }
  if (value instanceof RegExp) return { [TAG]: 'RegExp', source: value.source, flags: value.flags }
  if (value instanceof ArrayBuffer) return { [TAG]: 'ArrayBuffer', base64: base64(value) }
  if (value instanceof DataView) return { [TAG]: 'DataView', base64: base64(value) }
  const name = typeName(value)
  if (ArrayBuffer.isView(value) && (name in TYPED_ARRAYS || name === 'Float16Array')) return { [TAG]: name, base64: base64(value) }
  throw unsupported(path, `a ${name}`)
}

function fromBase64(text: unknown, path: string): Uint8Array {
  if (typeof text !== 'string') throw badTag(path, 'base64 must be a string')
  const bytes = Buffer.from(text, 'base64')
  // A copy, aligned for any element size.
  return new Uint8Array(bytes)
}

function badTag(path: string, why: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, `${path}: a bad {"${TAG}": …} object: ${why}`)
}

/**
 * Reads tagged JSON data back into the values `toJsonData(…, true)` wrote.
 * @param data - parsed JSON.
 * @param path - where `data` sits, for messages. Defaults to `$`.
 * @returns the value.
 * @throws {StowageError} INVALID_ARGUMENT for a tagged object that is not well formed.
 */
export function fromTaggedJson(data: unknown, path = '$'): unknown {
  if (data === null || typeof data !== 'object') return data
  if (Array.isArray(data)) return data.map((item, i) => fromTaggedJson(item, `${path}[${i}]`))
  const record = data as Record<string, unknown>
  const plain = (source: Record<string, unknown>) => {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(source)) Object.defineProperty(out, key, { value: fromTaggedJson(source[key], `${path}.${key}`), enumerable: true, writable: true, configurable: true })
    return out
  }
  if (!Object.hasOwn(record, TAG)) return plain(record)
  const tag = record[TAG]
  const value = record.value
  switch (tag) {
    case 'object':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badTag(path, 'object needs an object value')
      return plain(value as Record<string, unknown>)
    case 'number': {
      const n = value === '-0' ? -0 : Number(value)
      if (!['-0', 'NaN', 'Infinity', '-Infinity'].includes(String(value))) throw badTag(path, 'number is -0, NaN, Infinity or -Infinity')
      return n
    }
    case 'undefined':
      return undefined
    case 'bigint':
      if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw badTag(path, 'bigint needs a string of digits')
      return BigInt(value)
    case 'Date': {
      // null is the invalid Date; a string must be an ISO 8601 date or date-time that names one
      // (a typo must not become the invalid Date, nor "2023" a guess of the runtime's parser).
      if (value === null) return new Date(Number.NaN)
      const date = typeof value === 'string' && ISO_DATE.test(value) ? new Date(value) : undefined
      if (date === undefined || Number.isNaN(date.getTime())) throw badTag(path, 'Date needs an ISO 8601 string (as 2023-11-14T22:13:20.000Z) or null')
      return date
    }
    case 'Map':
      if (!Array.isArray(value)) throw badTag(path, 'Map needs an array of [key, value] pairs')
      return new Map(value.map((pair: unknown, i) => {
        if (!Array.isArray(pair) || pair.length !== 2) throw badTag(`${path}<entry ${i}>`, 'a Map entry is a [key, value] pair')
        return [fromTaggedJson(pair[0], `${path}<key ${i}>`), fromTaggedJson(pair[1], `${path}<value ${i}>`)]
      }))
    case 'Set':
      if (!Array.isArray(value)) throw badTag(path, 'Set needs an array')
      return new Set(value.map((v, i) => fromTaggedJson(v, `${path}<member ${i}>`)))
    case 'RegExp':
      return new RegExp(String(record.source), String(record.flags ?? ''))
    case 'ArrayBuffer':
      return fromBase64(record.base64, path).buffer
    case 'DataView':
      return new DataView(fromBase64(record.base64, path).buffer)
    default: {
      const Ctor = (TYPED_ARRAYS as Record<string, new (buffer: ArrayBuffer) => ArrayBufferView>)[String(tag)] ?? (tag === 'Float16Array' ? (globalThis as Record<string, unknown>).Float16Array as (new (buffer: ArrayBuffer) => ArrayBufferView) | undefined : undefined)
      if (Ctor === undefined) throw badTag(path, `unknown type ${JSON.stringify(tag)}`)
      return new Ctor(fromBase64(record.base64, path).buffer as ArrayBuffer)
    }
  }
}
