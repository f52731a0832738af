// Walks the text of a JSON value (one JSON.parse has accepted) for what JSON.parse reads otherwise
// than other readers do: numbers a double cannot hold as written (json-numbers.ts), and a key that
// appears twice in one object (JSON.parse keeps the last, many readers the first or refuse it).
// A loop with its own stack, not recursion, so any depth is walked.
import { DEFAULT_MAX_DEPTH } from '@stowage/core'
import { numberMeaningChange } from './json-numbers.js'

const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** Keys of an object looked up in a list; past this many, in a Set. */
const SMALL_OBJECT = 16

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39
}

// Adds a key to the keys seen in an object; false when it was there already.
function addKey(frame: Frame, key: string): boolean {
  const keys = (frame.keys ??= [])
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return false
    keys.push(key)
    if (keys.length > SMALL_OBJECT) frame.keys = new Set(keys)
    return true
  }
  if (keys.has(key)) return false
  keys.add(key)
  return true
}

/** The longest path to a value named in a reason; a deeper one is cut in its middle. */
const PATH_LENGTH = 120

interface Frame {
  readonly object: boolean
  /** Array: the index of the current element. Object: unused. */
  index: number
  /** Object: the current key, and the keys seen so far (a Set past SMALL_OBJECT keys). */
  key: string
  keys?: string[] | Set<string>
  /** Object: the next string is a key. */
  expectKey: boolean
}

function pathOf(stack: readonly Frame[]): string {
  let path = '$'
  for (const f of stack) path += f.object ? (/^[A-Za-z_$][\w$]*$/.test(f.key) ? `.${f.key}` : `[${JSON.stringify(f.key)}]`) : `[${f.index}]`
  return path.length <= PATH_LENGTH ? path : `${path.slice(0, PATH_LENGTH / 2)}…${path.slice(-PATH_LENGTH / 2)}`
}

// The index just past the string token that starts at `start` (a `"`).
function stringEnd(text: string, start: number): number {
  let j = start + 1
  for (;;) {
    j = text.indexOf('"', j)
    let backslashes = 0
    while (text.charCodeAt(j - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return j + 1
    j++
  }
}

/**
 * Why converting this JSON would change what it means to some reader, if it would: the first
 * number that JSON.parse does not read as written or that would change kind, or the first object
 * with a key twice, with where it sits (`$.a[1].b`).
 * @param text - JSON text that JSON.parse accepts.
 * @param depthLimit - stop, with a LIMIT_EXCEEDED reason, past this many levels of nesting: the
 *   codec refuses such a value anyway, and finding where it is too deep takes it seconds for a
 *   million levels. Defaults to no limit.
 * @returns the reason, or `undefined` when every reader reads the converted value as before.
 */
export function jsonMeaningChange(text: string, depthLimit = Infinity): string | undefined {
  const stack: Frame[] = []
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    const top = stack[stack.length - 1]
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= depthLimit) return `LIMIT_EXCEEDED: the value is nested deeper than maxDepth (${DEFAULT_MAX_DEPTH}): more than ${depthLimit} levels in its text`
      stack.push({ object: c === 0x7b, index: 0, key: '', expectKey: c === 0x7b })
      i++
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop()
      i++
    } else if (c === 0x2c /* , */) {
      if (top?.object) top.expectKey = true
      else if (top) top.index++
      i++
    } else if (c === 0x22 /* " */) {
      const end = stringEnd(text, i)
      if (top?.object && top.expectKey) {
        const raw = text.slice(i + 1, end - 1)
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw
        top.expectKey = false
        top.key = key
        if (!addKey(top, key)) {
          stack.pop()
          return `${pathOf(stack)}: the key ${JSON.stringify(key)} appears twice: JSON.parse keeps the last, other readers the first`
        }
      }
      i = end
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      // The common cases first, without a slice: an integer of at most 15 digits (not -0), and a
      // fraction (not all zeros) of at most 15 digits in all, are exact in a double and keep their
      // kind (any decimal of 15 digits comes back from the nearest double: DBL_DIG).
      const digits = c === 0x2d ? i + 1 : i
      let j = digits
      while (isDigit(text.charCodeAt(j))) j++
      let next = text.charCodeAt(j)
      if (next === 0x2e /* . */) {
        let nonZero = false
        for (j++; isDigit(text.charCodeAt(j)); j++) nonZero ||= text.charCodeAt(j) !== 0x30
        next = text.charCodeAt(j)
        if (nonZero && j - digits <= 16 && next !== 0x65 && next !== 0x45) {
          i = j
          continue
        }
      } else if (j - digits <= 15 && next !== 0x65 && next !== 0x45 && !(c === 0x2d && j - digits === 1 && text.charCodeAt(digits) === 0x30)) {
        i = j
        continue
      }
      NUMBER_TOKEN.lastIndex = i
      NUMBER_TOKEN.test(text)
      const token = text.slice(i, NUMBER_TOKEN.lastIndex)
      const why = numberMeaningChange(token)
      if (why !== undefined) return `${pathOf(stack)}: ${why}`
      i = NUMBER_TOKEN.lastIndex
    } else i++ // whitespace, `:`, and the letters of true, false and null
  }
  return undefined
}
