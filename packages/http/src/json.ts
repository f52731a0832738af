// The JSON representation of a value, for clients that ask for JSON instead of the envelope.

// Types JSON has no form for, given the nearest one (Dates already arrive as ISO strings).
function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Map) {
    const entries = [...value]
    return entries.every(([k]) => typeof k === 'string') ? Object.fromEntries(entries) : entries
  }
  if (value instanceof Set) return [...value]
  if (ArrayBuffer.isView(value)) {
    return value instanceof DataView ? Array.from(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) : Array.from(value as unknown as ArrayLike<number | bigint>, (n) => (typeof n === 'bigint' ? n.toString() : n))
  }
  if (value instanceof ArrayBuffer) return Array.from(new Uint8Array(value))
  if (value instanceof RegExp) return value.toString()
  return value
}

/**
 * A value as JSON text: Dates as ISO strings, BigInts as decimal strings, Maps as objects (or
 * `[key, value]` pairs when a key is not a string), Sets, typed arrays and ArrayBuffers as arrays,
 * RegExps as their source text; `undefined` inside objects is left out, as JSON.stringify does.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value, replacer) ?? 'null'
}

// Whether `value` takes the replacer: the types JSON has no form for.
function special(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return typeof value === 'bigint'
  return value instanceof Map || value instanceof Set || ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof RegExp
}

// A lower bound of String(n).length (`null` for NaN and the infinities), without making the string.
function digits(n: number): number {
  if (!Number.isFinite(n)) return 4
  let length = n < 0 ? 2 : 1
  for (let a = Math.abs(n); a >= 10 && length < 21; a /= 10) length++
  return length
}

// A walk of the value as JSON.stringify will see it, summing a lower bound of its text (strings
// without their escapes, no commas) and noting whether the replacer is needed. It stops as soon as
// the bound passes the limit, so a value far larger than the limit costs about the limit's worth.
class Measure {
  atLeast = 0
  plain = true
  constructor(readonly limit: number) {}

  // False when the bound passed the limit.
  value(key: string | number, item: unknown): boolean {
    if (typeof item === 'object' && item !== null && typeof (item as { toJSON?: unknown }).toJSON === 'function') item = (item as { toJSON(key: string): unknown }).toJSON(String(key))
    if (special(item)) {
      this.plain = false
      item = replacer(String(key), item)
    }
    if (typeof item === 'string') this.atLeast += item.length + 2
    else if (typeof item === 'number') this.atLeast += digits(item)
    else if (Array.isArray(item)) {
      this.atLeast += 2
      for (let i = 0; i < item.length; i++) if (!this.element(i, item[i])) return false
    } else if (typeof item === 'object' && item !== null) {
      this.atLeast += 2
      for (const name of Object.keys(item)) {
        const member = (item as Record<string, unknown>)[name]
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue
        this.atLeast += name.length + 3
        if (!this.value(name, member)) return false
      }
    } else this.atLeast += 4 // null, true, false: four or five characters; undefined and others left out
    return this.atLeast <= this.limit
  }

  // An array element: what JSON leaves out of objects is `null` in arrays.
  element(key: number, item: unknown): boolean {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
      this.atLeast += 4
      return this.atLeast <= this.limit
    }
    return this.value(key, item)
  }
}

/**
 * {@link toJson}, given up as soon as the text is sure to be longer than `maxLength` characters, so
 * a value whose JSON is far larger than the limit costs about the limit's worth of work, not its own.
 *
 * @returns the JSON text, or `undefined` when it is longer than `maxLength`.
 */
export function toJsonWithin(value: unknown, maxLength: number): string | undefined {
  const measure = new Measure(maxLength)
  if (!measure.value('', value)) return undefined
  // Without Maps, BigInts and the like, JSON.stringify keeps to its fast path (no replacer calls).
  const text = (measure.plain ? JSON.stringify(value) : JSON.stringify(value, replacer)) ?? 'null'
  return text.length > maxLength ? undefined : text
}
