// What `inspect` prints of a value, bounded: node's util.inspect already stops at a depth, at so
// many array, Map and Set items and at so many characters of a string, but not at so many keys of
// an object, and it writes every BigInt whole, in decimal, in time that grows with the square of
// its length. A copy of the part that will be printed is made here, with those two bounded.
import { inspect as inspectValue, type InspectOptions } from 'node:util'
import { bigintSize, printsWhole } from '../format/bigint-size.js'
import { safeDisplay, safeText } from '../format/safe-text.js'

/** The bounds of what inspect prints of a value. */
export const DISPLAY = {
  /** Levels of nesting shown. */
  depth: 8,
  /** Items of an array, typed array, Map or Set shown. */
  items: 20,
  /** Keys of an object shown. */
  keys: 100,
  /** Characters of a string shown. */
  stringLength: 200,
} as const

// What util.inspect passes a custom inspect function, besides the options it was given.
type Stylize = InspectOptions & { stylize(text: string, style: string): string }

class LargeBigint {
  constructor(private readonly value: bigint) {}
  [inspectValue.custom](_depth: number, options: Stylize): string {
    const { bits, digits, hex } = bigintSize(this.value)
    return options.stylize(`[BigInt of ${bits.toLocaleString('en-US')} bits (${digits.toLocaleString('en-US')} digits): ${hex}]`, 'bigint')
  }
}

// util.inspect writes a RegExp's source as it is: control characters and all.
class ShownRegExp {
  constructor(private readonly value: RegExp) {}
  [inspectValue.custom](_depth: number, options: Stylize): string {
    return options.stylize(safeText(String(this.value)), 'regexp')
  }
}

// An object with more keys than shown: its first keys, then how many more (as arrays say it).
class ManyKeys {
  constructor(private readonly shown: object, private readonly more: number) {}
  [inspectValue.custom](depth: number, options: InspectOptions, inspect: typeof inspectValue): string {
    const text = inspect(this.shown, { ...options, depth })
    if (!text.endsWith('}')) return text // past the depth: [Object]
    const more = `... ${this.more} more key${this.more === 1 ? '' : 's'}`
    return text.endsWith('\n}') ? `${text.slice(0, -2)},\n  ${more}\n}` : `${text.slice(0, -2)}, ${more} }`
  }
}

function copyObject(value: object, level: number): object {
  const keys = Object.keys(value)
  const out = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>
  const shown = Math.min(keys.length, DISPLAY.keys)
  for (let i = 0; i < shown; i++) {
    const key = keys[i]!
    Object.defineProperty(out, key, { value: displayCopy((value as Record<string, unknown>)[key], level + 1), enumerable: true, writable: true, configurable: true })
  }
  return keys.length > shown ? new ManyKeys(out, keys.length - shown) : out
}

function displayCopy(value: unknown, level: number): unknown {
  if (typeof value === 'bigint') return printsWhole(value) ? value : new LargeBigint(value)
  // Deeper than util.inspect prints ([Object]), the value is left as it is: never looked at.
  if (value === null || typeof value !== 'object' || level > DISPLAY.depth + 1) return value
  if (Array.isArray(value)) {
    const out = value.slice()
    for (let i = 0; i < Math.min(out.length, DISPLAY.items); i++) out[i] = displayCopy(out[i], level + 1)
    return out
  }
  if (value instanceof Map) return new Map([...value].map(([k, v], i) => (i < DISPLAY.items ? [displayCopy(k, level + 1), displayCopy(v, level + 1)] : [k, v])))
  if (value instanceof RegExp) return new ShownRegExp(value)
  if (value instanceof Set) return new Set([...value].map((v, i) => (i < DISPLAY.items ? displayCopy(v, level + 1) : v)))
  const proto = Object.getPrototypeOf(value) as unknown
  if (proto === Object.prototype || proto === null) return copyObject(value, level)
  return value
}

/**
 * A decoded value as inspect prints it: util.inspect within {@link DISPLAY}'s bounds, an object's
 * keys past the first 100 counted, and a BigInt of more than 1,024 bits shown by its size and hex
 * digits (bigint-size.ts); control and format characters escaped (safe-text.ts), in RegExps too.
 * @param value - a decoded value.
 * @param colors - color it (on a terminal).
 * @returns the text, in time and length bounded by the bounds (and linear in the value's size).
 */
export function displayValue(value: unknown, colors: boolean): string {
  const text = inspectValue(displayCopy(value, 0), { depth: DISPLAY.depth, colors, maxArrayLength: DISPLAY.items, maxStringLength: DISPLAY.stringLength, breakLength: 100, sorted: false })
  return safeDisplay(text, colors)
}
