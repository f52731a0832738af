// Whether a JSON number keeps its meaning through `JSON.parse` and Stowage's encoder. JSON has one
// kind of number, of any size and precision; JSON.parse reads it as the nearest double, and the
// encoder stores a double that is a safe integer (other than -0) as a MessagePack integer, any
// other as a float. A number keeps its meaning when the double is exactly the number its text
// says (compared with the double's shortest text, so 0.1 is 0.1), and when it is stored as what
// its spelling says to readers that tell integers from floats (Python, Go, Rust): digits alone an
// integer, a fraction or exponent a float.

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/
const SHORT_INTEGER = /^-?\d{1,15}$/

/** The longest text of a number quoted in a reason; longer ones are cut. */
const QUOTED_DIGITS = 40

interface Decimal {
  readonly negative: boolean
  /** Significant digits, without leading or trailing zeros; empty for zero. */
  readonly digits: string
  /** The value is digits × 10^exponent. */
  readonly exponent: bigint
}

function decimal(text: string): Decimal | undefined {
  const m = NUMBER.exec(text)
  if (m === null) return undefined
  const fraction = m[3] ?? ''
  const all = (m[2] as string) + fraction
  const lead = all.length - all.replace(/^0+/, '').length
  if (lead === all.length) return { negative: false, digits: '', exponent: 0n }
  const trimmed = all.slice(lead).replace(/0+$/, '')
  const trail = all.length - lead - trimmed.length
  return { negative: m[1] === '-', digits: trimmed, exponent: BigInt(m[4] ?? '0') - BigInt(fraction.length) + BigInt(trail) }
}

function sameValue(a: string, b: string): boolean {
  const x = decimal(a)
  const y = decimal(b)
  return x !== undefined && y !== undefined && x.negative === y.negative && x.digits === y.digits && x.exponent === y.exponent
}

function quoted(text: string): string {
  return text.length <= QUOTED_DIGITS ? text : `${text.slice(0, QUOTED_DIGITS)}… (${text.length.toLocaleString('en-US')} characters)`
}

/**
 * Why converting a JSON number would change what it means to some reader, if it would.
 * @param text - a JSON number token, as written in the value.
 * @returns the reason, or `undefined` when the number keeps its meaning.
 */
export function numberMeaningChange(text: string): string | undefined {
  // Every integer of up to 15 digits is an exact, safe double; -0 aside, nothing to check.
  if (SHORT_INTEGER.test(text) && text !== '-0') return undefined
  const n = Number(text)
  const shortest = String(n)
  // Written as JSON.stringify writes it (nearly every value): exact; only its kind is to check.
  if (shortest === text && (Number.isSafeInteger(n) ? !text.includes('.') : text.includes('.') || text.includes('e'))) return undefined
  const integerText = !/[.eE]/.test(text)
  if (integerText) {
    if (text === '-0') return '-0 is the integer 0 to most JSON readers, and would be stored as the float -0 (what JavaScript reads)'
    if (!Number.isSafeInteger(n)) {
      const exact = Number.isFinite(n) && sameValue(text, shortest)
      return `the integer ${quoted(text)} is beyond 2^53 and would not keep its meaning: ${exact ? 'it would be stored as a float, not an integer' : `JSON.parse reads it as ${quoted(shortest)}`}`
    }
    return undefined
  }
  if (!Number.isFinite(n)) return `the number ${quoted(text)} is beyond the largest double: JSON.parse reads it as ${shortest}`
  if (n === 0 && decimal(text)?.digits !== '') return `the number ${quoted(text)} is nearer to 0 than the smallest double: JSON.parse reads it as 0`
  if (shortest !== text && !sameValue(text, shortest)) return `the number ${quoted(text)} has more digits than a double keeps: JSON.parse reads it as ${shortest}`
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) return `the number ${quoted(text)} would be stored as the integer ${shortest}: readers that tell integers from floats would see another type`
  return undefined
}
