import { formatBytes, formatCount, formatRatio } from '../format/units.js'
import type { RunEnd } from '../run/run-end.js'
import type { ConvertStats } from './convert-stats.js'
import { quote, safeText } from '../format/safe-text.js'

/** The `convert` report as data (`convert --json` prints exactly this). */
export interface ConvertReport extends ConvertStats {
  readonly server: string
  readonly match: string
  readonly dryRun: boolean
  readonly end: RunEnd
  readonly elapsedMs: number
}

/**
 * The report for people; keys and reasons from stored data are escaped (safe-text.ts).
 * @param r - the report.
 * @returns the text, ending in a newline.
 */
export function convertReportText(r: ConvertReport): string {
  const out: string[] = []
  const state = { complete: 'complete', interrupted: 'INTERRUPTED: run it again to go on', 'redis-gone': 'REDIS WENT AWAY: run it again to go on', 'redis-error': 'REDIS REFUSED A COMMAND: see above' }[r.end]
  out.push(safeText(`stowage convert ${r.server} --match ${r.match}${r.dryRun ? ' --dry-run (nothing written)' : ''}: ${state}`))
  out.push(`  scanned            ${formatCount(r.scanned)} keys in ${(r.elapsedMs / 1000).toFixed(1)} s`)
  out.push(`  ${r.dryRun ? 'would convert' : 'converted    '}      ${formatCount(r.converted)} JSON values`)
  out.push(`  already Stowage    ${formatCount(r.alreadyStowage)} (skipped)`)
  out.push(`  counters           ${formatCount(r.counters)} (skipped: numbers that INCR, INCRBY or INCRBYFLOAT work on, left as they are)`)
  out.push(`  not JSON           ${formatCount(r.invalid)} (refused)`)
  out.push(`  kept as JSON       ${formatCount(r.keptAsJson)} (refused: converting would change what they mean, or the codec refuses them)`)
  out.push(`  other types        ${formatCount(r.notStrings)} (left alone)`)
  out.push(`  changed meanwhile  ${formatCount(r.changedMeanwhile)} (changed, deleted or expired since read: left alone)`)
  if (r.converted > 0) {
    out.push(`  value bytes        ${formatBytes(r.bytesBefore)} → ${formatBytes(r.bytesAfter)} (${formatRatio(r.bytesAfter / r.bytesBefore)}×)`)
    if (r.dryRun) out.push(`  memory before      ${formatBytes(r.memoryBefore)} (MEMORY USAGE of those keys; after: run without --dry-run)`)
    else out.push(`  memory             ${formatBytes(r.memoryBefore)} → ${formatBytes(r.memoryAfter)} (MEMORY USAGE of the converted keys: saved ${formatBytes(r.memoryBefore - r.memoryAfter)}, ${formatRatio(r.memoryAfter / r.memoryBefore)}×)`)
  }
  if (r.invalid > 0) {
    out.push('')
    out.push(`Refused (not valid JSON)${r.invalid > r.invalidKeys.length ? `: the first ${r.invalidKeys.length} of ${formatCount(r.invalid)}` : ''}`)
    for (const { key, reason } of r.invalidKeys) out.push(`  ${quote(key)}: ${safeText(reason)}`)
  }
  if (r.keptAsJson > 0) {
    out.push('')
    out.push(`Refused (left as JSON)${r.keptAsJson > r.keptAsJsonKeys.length ? `: the first ${r.keptAsJsonKeys.length} of ${formatCount(r.keptAsJson)}` : ''}`)
    for (const { key, reason } of r.keptAsJsonKeys) out.push(`  ${quote(key)}: ${safeText(reason)}`)
  }
  return out.join('\n') + '\n'
}
