// Freezing a value deeply: its arrays and plain objects (those of Object.prototype or none),
// through the values of its Maps and Sets; other objects (Dates, typed arrays, class instances)
// are left as they are, and so is what they hold. The decoder builds values frozen this way
// itself when asked (DecodeOptions.freeze), which costs less than walking them afterwards.

/** Freezes `value` as described above; an object already frozen is taken as frozen throughout. */
export function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return
  const proto = Object.getPrototypeOf(value) as unknown
  if (Array.isArray(value)) {
    Object.freeze(value)
    for (const item of value) deepFreeze(item)
  } else if (proto === Object.prototype || proto === null) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  } else if (value instanceof Map) {
    for (const item of value.values()) deepFreeze(item)
  } else if (value instanceof Set) {
    for (const item of value) deepFreeze(item)
  }
}
