import { formatBytes, formatCount, formatDuration, formatPercent, formatRatio, formatTable } from '../format/units.js'
import { DEFAULT_TRAIN_SIZE, train } from '../train/train-report.js'
import { estimateRatio } from './ratio-estimate.js'
import type { RunEnd } from '../run/run-end.js'
import type { ScanStats } from './scan-stats.js'
import type { LargeKey } from './top-keys.js'
import { quote, safeText } from '../format/safe-text.js'

/** The `scan` report as data (`scan --json` prints exactly this). */
export interface ScanReport {
  readonly server: string
  readonly match: string | null
  /** `complete`, or why the report is partial. */
  readonly end: RunEnd
  readonly elapsedMs: number
  readonly keysPerSecond: number
  /** DBSIZE when the scan started. */
  readonly dbsize: number
  readonly keys: number
  /** Keys SCAN returned that were deleted or expired before they were read. */
  readonly vanished: number
  readonly memory: number
  readonly kinds: Record<string, { keys: number; memory: number; bytes: number }>
  readonly otherTypes: Record<string, number>
  readonly envelopes: {
    readonly byCompression: Record<string, number>
    readonly payloadBytes: number
    readonly storedBytes: number
    /** storedBytes / payloadBytes: what compression kept of the MessagePack. */
    readonly storedToPayload: number | null
    readonly chunkManifests: number
    readonly chunks: number
  }
  /** What the JSON strings would take as envelopes, from a re-encoded random sample. */
  readonly jsonEstimate: {
    readonly sampleSize: number
    readonly population: number
    readonly ratio: number
    readonly ci95: [number, number] | null
    readonly jsonBytes: number
    readonly estimatedBytes: number
    /** Σ MEMORY USAGE of the JSON keys times the sample's ratio of memory as envelopes to memory now (see redis-memory.ts). */
    readonly estimatedMemory: number
    readonly memoryRatio: number
    readonly sampleInvalid: number
    /** Valid JSON the codec refuses (nested past maxDepth, …): `convert` leaves such values as JSON. */
    readonly sampleRefused: number
    readonly sampleTooLarge: number
    /**
     * With a preset dictionary trained on four fifths of the sample (as `stowage train` does),
     * measured on the fifth it never saw: the ratio to JSON with and without it. Null below 40 sampled values.
     */
    readonly withDictionary: { readonly dictionaryBytes: number; readonly trainedOn: number; readonly measuredOn: number; readonly ratio: number; readonly ratioWithout: number } | null
  } | null
  readonly largest: LargeKey[]
}

/**
 * Builds the report from the counts.
 * @param stats - the counts.
 * @param facts - the server, pattern, how it ended, the time taken and DBSIZE.
 * @returns the report.
 */
export function buildScanReport(stats: ScanStats, facts: { server: string; match: string | undefined; end: RunEnd; elapsedMs: number; dbsize: number }): ScanReport {
  const k = stats.kinds
  const json = k.json
  const sample = stats.sample.measurements()
  const estimate = estimateRatio(sample.map((s) => ({ x: s.jsonBytes, y: s.stowageBytes })), json.keys)
  const memoryEstimate = estimateRatio(sample.map((s) => ({ x: s.memory, y: s.memoryAsStowage })), json.keys)
  const e = stats.envelopes
  return {
    server: facts.server,
    match: facts.match ?? null,
    end: facts.end,
    elapsedMs: Math.round(facts.elapsedMs),
    keysPerSecond: Math.round((stats.keys + stats.vanished) / Math.max(facts.elapsedMs / 1000, 0.001)),
    dbsize: facts.dbsize,
    keys: stats.keys,
    vanished: stats.vanished,
    memory: k.stowage.memory + json.memory + k.string.memory + k.other.memory,
    kinds: { stowage: { ...k.stowage }, json: { ...json }, string: { ...k.string }, other: { ...k.other } },
    otherTypes: { ...stats.otherTypes },
    envelopes: {
      byCompression: { ...e.byCompression },
      payloadBytes: e.payloadBytes,
      storedBytes: e.storedBytes,
      storedToPayload: e.payloadBytes > 0 ? e.storedBytes / e.payloadBytes : null,
      chunkManifests: e.manifests,
      chunks: e.chunks,
    },
    jsonEstimate: estimate
      ? {
          sampleSize: estimate.sampleSize,
          population: estimate.population,
          ratio: estimate.ratio,
          ci95: estimate.low === undefined || estimate.high === undefined ? null : [estimate.low, estimate.high],
          jsonBytes: json.bytes,
          estimatedBytes: Math.round(json.bytes * estimate.ratio),
          estimatedMemory: Math.round(json.memory * (memoryEstimate?.ratio ?? 1)),
          memoryRatio: memoryEstimate?.ratio ?? 1,
          sampleInvalid: stats.sampleInvalid,
          sampleRefused: stats.sampleRefused,
          sampleTooLarge: stats.sampleTooLarge,
          withDictionary: dictionaryEstimate(sample.map((s) => s.value)),
        }
      : null,
    largest: stats.top.sorted(),
  }
}

// Below this many sampled values a dictionary's figure says little: none is trained.
const MIN_DICTIONARY_SAMPLE = 40

function dictionaryEstimate(values: readonly unknown[]): NonNullable<ScanReport['jsonEstimate']>['withDictionary'] {
  if (values.length < MIN_DICTIONARY_SAMPLE) return null
  const trained = train({ values }, DEFAULT_TRAIN_SIZE)
  if (trained === undefined) return null // values too small for a dictionary to help
  const { dictionary, trainedOn, measured } = trained
  return { dictionaryBytes: dictionary.length, trainedOn, measuredOn: values.length - trainedOn, ratio: measured.with / Math.max(1, measured.json), ratioWithout: measured.without / Math.max(1, measured.json) }
}

const KIND_NAMES: Record<string, string> = { stowage: 'Stowage envelopes', json: 'JSON strings', string: 'other strings', other: 'other types' }

/**
 * The report for people.
 * @param r - the report.
 * @returns the text, ending in a newline.
 */
export function scanReportText(r: ScanReport): string {
  const out: string[] = []
  const state = { complete: 'complete', interrupted: 'INTERRUPTED: a partial report', 'redis-gone': 'REDIS WENT AWAY: a partial report', 'redis-error': 'REDIS REFUSED A COMMAND: a partial report' }[r.end]
  out.push(safeText(`stowage scan ${r.server}${r.match === null ? '' : ` --match ${r.match}`}: ${state}`))
  out.push(`${formatCount(r.keys)} keys (DBSIZE ${formatCount(r.dbsize)}) in ${formatDuration(r.elapsedMs)}, ${formatCount(r.keysPerSecond)} keys/s; ${formatBytes(r.memory)} in all (MEMORY USAGE)${r.vanished ? `; ${formatCount(r.vanished)} keys vanished while scanned` : ''}`)
  out.push('')
  const rows = [['kind', 'keys', 'share', 'memory', 'share', 'value bytes']]
  for (const [kind, s] of Object.entries(r.kinds)) {
    rows.push([KIND_NAMES[kind] ?? kind, formatCount(s.keys), formatPercent(s.keys, r.keys), formatBytes(s.memory), formatPercent(s.memory, r.memory), kind === 'other' ? '-' : formatBytes(s.bytes)])
  }
  out.push(formatTable(rows))
  const types = Object.entries(r.otherTypes)
  if (types.length > 0) out.push(`  other types: ${types.sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${formatCount(n)}`).join(', ')}`)
  const e = r.envelopes
  if (r.kinds.stowage!.keys > 0) {
    out.push('')
    out.push('Stowage envelopes (from their headers)')
    const by = Object.entries(e.byCompression).map(([c, n]) => `${c} ${formatCount(n)}`).join(', ')
    if (by) out.push(`  compression: ${by}`)
    if (e.storedToPayload !== null) out.push(`  stored ${formatBytes(e.storedBytes)} for ${formatBytes(e.payloadBytes)} of MessagePack: ${formatRatio(e.storedToPayload)}×`)
    if (e.chunkManifests || e.chunks) out.push(`  chunked values: ${formatCount(e.chunkManifests)} manifests, ${formatCount(e.chunks)} chunk keys (@stowage/redis, FORMAT.md §6)`)
  }
  const j = r.jsonEstimate
  if (j) {
    out.push('')
    out.push('JSON strings as Stowage (estimate)')
    const ci = j.ci95 ? `, 95% interval ${formatRatio(j.ci95[0])}–${formatRatio(j.ci95[1])}` : ', no interval from one sample'
    out.push(`  sample: ${formatCount(j.sampleSize)} of ${formatCount(j.population)} JSON values re-encoded with the default codec`)
    out.push(`  ratio to JSON: ${formatRatio(j.ratio)}×${ci}`)
    out.push(`  value bytes: ${formatBytes(j.jsonBytes)} → about ${formatBytes(j.estimatedBytes)}`)
    out.push(`  memory: ${formatBytes(r.kinds.json!.memory)} → about ${formatBytes(j.estimatedMemory)} (saves about ${formatBytes(r.kinds.json!.memory - j.estimatedMemory)}, with jemalloc's size classes)`)
    const d = j.withDictionary
    if (d) out.push(`  with a dictionary (${formatBytes(d.dictionaryBytes)}, trained on ${formatCount(d.trainedOn)} sampled values): ${formatRatio(d.ratio)}× JSON on the ${formatCount(d.measuredOn)} held out, against ${formatRatio(d.ratioWithout)}× without (stowage train stores one)`)
    if (j.sampleInvalid || j.sampleRefused || j.sampleTooLarge) out.push(`  left out of the sample: ${formatCount(j.sampleInvalid)} not valid JSON, ${formatCount(j.sampleRefused)} refused by the codec (convert leaves them as JSON), ${formatCount(j.sampleTooLarge)} over 16 MiB`)
  } else if (r.kinds.json!.keys > 0) {
    out.push('', 'JSON strings as Stowage: no estimate (no sampled value could be re-encoded)')
  }
  if (r.largest.length > 0) {
    out.push('')
    out.push(`Largest keys`)
    out.push(formatTable([['key', 'memory', 'kind', 'type'], ...r.largest.map((l) => [truncateKey(l.key), formatBytes(l.memory), l.kind, l.type])]))
  }
  return out.join('\n') + '\n'
}

function truncateKey(key: string): string {
  const printable = quote(key).slice(1, -1)
  return printable.length > 60 ? `${printable.slice(0, 57)}...` : printable
}
