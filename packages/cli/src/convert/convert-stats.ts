/** What `convert` did, or would do with `--dry-run`. */
export interface ConvertStats {
  /** Keys SCAN returned. */
  scanned: number
  /** JSON values rewritten as envelopes (with --dry-run: that would be). */
  converted: number
  /** Already envelopes (or chunk manifests): skipped, which makes a second run a no-op. */
  alreadyStowage: number
  /** Numbers Redis counts with (INCR, INCRBY, INCRBYFLOAT work on them): skipped, so those commands keep working. */
  counters: number
  /** Changed or deleted by someone else between the read and the write: left alone. */
  changedMeanwhile: number
  /** Keys of other types: left alone. */
  notStrings: number
  /** Strings that are not valid JSON: refused. */
  invalid: number
  /** The first refused keys, with why (at most `invalidListSize`). */
  readonly invalidKeys: Array<{ key: string; reason: string }>
  /** JSON values left as JSON: converting would change what they mean to some reader (json-meaning.ts). */
  keptAsJson: number
  /** The first of those, with why (at most `invalidListSize`). */
  readonly keptAsJsonKeys: Array<{ key: string; reason: string }>
  /** Σ value bytes of the converted keys before and after. */
  bytesBefore: number
  bytesAfter: number
  /** Σ MEMORY USAGE of the converted keys before and after (after: not measured with --dry-run). */
  memoryBefore: number
  memoryAfter: number
}

/** How many refused keys the report lists by name, per list; the rest are counted. */
export const INVALID_LIST_SIZE = 20

/** @returns zeroed stats. */
export function emptyConvertStats(): ConvertStats {
  return { scanned: 0, converted: 0, alreadyStowage: 0, counters: 0, changedMeanwhile: 0, notStrings: 0, invalid: 0, invalidKeys: [], keptAsJson: 0, keptAsJsonKeys: [], bytesBefore: 0, bytesAfter: 0, memoryBefore: 0, memoryAfter: 0 }
}
