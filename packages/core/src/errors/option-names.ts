// Refusing options a function does not know, naming the one meant: shared by the codec, the Cache,
// the stores and the packages over them, so that a misspelt option is an error everywhere alike.
import { StowageErrorCode } from './error-codes.js'
import { StowageError } from './stowage-error.js'

/**
 * Refuses an option that `known` does not name: a misspelt one (`tll`, `nameSpace`) would otherwise
 * be ignored in silence, and its default used. For Store implementations too, so that every store
 * refuses bad options alike.
 * @param what - what the options are of, for the message (`'createCache'`, `'local'`, …).
 * @throws {StowageError} INVALID_ARGUMENT naming the option, and the known one it is nearest to.
 */
export function checkOptionNames(what: string, options: unknown, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) return
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue
    const near = known.find((name) => name.toLowerCase() === key.toLowerCase()) ?? known.find((name) => closeSpelling(name, key))
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `unknown ${what} option ${JSON.stringify(key)}${near === undefined ? '' : ` (did you mean ${near}?)`}`)
  }
}

// Whether two names are at most two edits apart (a letter left out, added, changed or swapped).
function closeSpelling(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  let before = Array.from({ length: y.length + 1 }, (_, j) => j)
  let previous = before
  for (let i = 1; i <= x.length; i++) {
    const row = [i]
    for (let j = 1; j <= y.length; j++) {
      let d = Math.min((before[j] as number) + 1, (row[j - 1] as number) + 1, (before[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d = Math.min(d, (previous[j - 2] as number) + 1)
      row.push(d)
    }
    previous = before
    before = row
  }
  return (before[y.length] as number) <= 2
}
