// Layouts that drop repeated keys and put alike values side by side, all plain MessagePack inside
// their extension:
// - RECORDS: an array of same-shaped objects as [count, keys, column 0, …, column k-1];
// - DICT: an object whose values are same-shaped objects as [keys, values], values as RECORDS;
// - DELTA: a rising or falling run of integers as [first, d1, d2, …].
import { corrupt } from '../../errors/make.js'
import { pairOf } from './collections.js'

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The keys shared by every element of `items`, when every element is a plain object with the same
 * keys in the same order (the condition for RECORDS); otherwise undefined.
 */
export function sharedKeys(items: ArrayLike<unknown>): string[] | undefined {
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

/** Whether RECORDS pay for rows like `first`; see RECORDS_MAX_VALUE_TO_KEY_RATIO. */
export function worthRecords(first: Record<string, unknown>, keys: readonly string[]): boolean {
  let keyBytes = 0
  let valueBytes = 0
  for (const key of keys) {
    keyBytes += key.length + 1
    const v = first[key]
    valueBytes += typeof v === 'string' ? v.length + 1 : typeof v === 'object' && v !== null ? 16 : 5
  }
  return valueBytes <= keyBytes * RECORDS_MAX_VALUE_TO_KEY_RATIO
}

/**
 * Builds a DICT's object from `[keys, values]`.
 * @throws {StowageError} CORRUPT unless keys are strings matching values one to one.
 */
export function dictFromData(data: unknown, define: (obj: Record<string, unknown>, key: string, value: unknown) => void): Record<string, unknown> {
  const [keys, values] = pairOf(data)
  const out: Record<string, unknown> = {}
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    if (typeof key !== 'string') throw corrupt('a dict key is not a string')
    define(out, key, values[i])
  }
  return out
}

/** True when `items` are safe integers (not -0) that never change direction: DELTA pays for them. */
export function isMonotonicIntegers(items: readonly unknown[]): boolean {
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

/**
 * Turns DELTA data (first value, then differences) into the integers, in place. The decoder sums
 * plain arrays as it reads them; this takes DELTA data in any other form.
 * @throws {StowageError} CORRUPT for anything but a non-empty array, a non-integer or a sum past ±2^53.
 */
export function fromDeltas(items: unknown): number[] {
  if (!Array.isArray(items) || items.length === 0) throw corrupt('bad delta extension')
  let acc = 0
  for (let i = 0; i < items.length; i++) {
    const d = items[i]
    if (typeof d !== 'number' || !Number.isSafeInteger(d)) throw corrupt('bad delta extension')
    acc += d
    if (!Number.isSafeInteger(acc)) throw corrupt('bad delta extension')
    items[i] = acc
  }
  return items as number[]
}
