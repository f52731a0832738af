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
