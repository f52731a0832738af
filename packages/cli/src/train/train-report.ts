// What `stowage train` found: the dictionary, and what it buys on values it was not trained on.
import { createCodec, dictionaryId, StowageError, StowageErrorCode, trainDictionary } from '@stowage/core'
import { equivalentJsonBytes } from '../format/equivalent-json.js'
import { formatBytes, formatCount, formatRatio } from '../format/units.js'
import { quote, safeText } from '../format/safe-text.js'
import type { ValueSample } from './sample-values.js'

/** The report of one training. */
export interface TrainReport {
  readonly server: string
  readonly match: string
  readonly keys: number
  readonly reserved: number
  readonly unreadable: number
  readonly interrupted: boolean
  /** Values trained on, and values held out to measure the dictionary on. */
  readonly trainedOn: number
  readonly measuredOn: number
  readonly dictionary: { readonly id: string; readonly bytes: number; readonly key: string; readonly stored: boolean; readonly file: string | null }
  /** Bytes of the held-out values: as JSON, as envelopes without the dictionary, and with it. */
  readonly measured: { readonly json: number; readonly without: number; readonly with: number }
}

/** The dictionary size `train` uses unless told: 4 KiB took issue-like and user objects to 0.21× and 0.11× their JSON. */
export const DEFAULT_TRAIN_SIZE = 4096
/** Fewer values than this give a dictionary of noise: training is refused. */
export const MIN_VALUES = 20
// One value in this many is held out of training, to measure the dictionary on what it never saw.
const HOLD_OUT_EVERY = 5

/**
 * Trains a dictionary on four fifths of the sample and measures it on the rest.
 * @param sample - from sampleValues; at least {@link MIN_VALUES} values.
 * @param size - the dictionary's size in bytes.
 * @returns the dictionary and the bytes measured on the held-out values; `undefined` when the
 *   values are too small to learn anything from (none holds 8 bytes of MessagePack).
 */
export function train(sample: Pick<ValueSample, 'values'>, size: number): { dictionary: Uint8Array; trainedOn: number; measured: TrainReport['measured'] } | undefined {
  const training: unknown[] = []
  const held: unknown[] = []
  sample.values.forEach((v, i) => (i % HOLD_OUT_EVERY === HOLD_OUT_EVERY - 1 ? held : training).push(v))
  let dictionary: Uint8Array
  try {
    dictionary = trainDictionary(training, { size })
  } catch (e) {
    if (StowageError.isInstance(e) && e.code === StowageErrorCode.INVALID_ARGUMENT) return undefined
    throw e
  }
  const without = createCodec()
  const withDictionary = createCodec({ dictionaries: [dictionary] })
  const measured = { json: 0, without: 0, with: 0 }
  for (const value of held) {
    measured.json += equivalentJsonBytes(value)
    measured.without += without.encode(value).length
    measured.with += withDictionary.encode(value).length
  }
  return { dictionary, trainedOn: training.length, measured }
}

/** The id of a dictionary as the envelopes and the store key write it: 8 hex digits. */
export const dictionaryIdHex = (dictionary: Uint8Array): string => dictionaryId(dictionary).toString(16).padStart(8, '0')

/**
 * The report for people.
 * @param r - the report.
 * @returns the text, ending in a newline.
 */
export function trainReportText(r: TrainReport): string {
  const m = r.measured
  const lines: Array<[string, string]> = [
    ['source', `${safeText(r.server)} match ${quote(r.match)}${r.interrupted ? ' (interrupted: the keys scanned so far)' : ''}`],
    ['values', `${formatCount(r.trainedOn + r.measuredOn)} sampled of ${formatCount(r.keys)} keys: ${formatCount(r.trainedOn)} to train, ${formatCount(r.measuredOn)} held out to measure`],
    ['skipped', `${formatCount(r.unreadable)} sampled keys neither JSON nor a readable envelope; ${formatCount(r.reserved)} of Stowage's own keys`],
    ['dictionary', `${formatCount(r.dictionary.bytes)} B, id 0x${r.dictionary.id}`],
    ['stored', r.dictionary.stored ? `under ${r.dictionary.key}: every Cache over this Redis finds it` : 'no (--dry-run)'],
    ['without it', `${formatRatio(m.without / Math.max(1, m.json))}× JSON on the held-out values (${formatBytes(m.json)} → ${formatBytes(m.without)})`],
    ['with it', `${formatRatio(m.with / Math.max(1, m.json))}× JSON (${formatBytes(m.json)} → ${formatBytes(m.with)}), ${formatRatio(m.with / Math.max(1, m.without))}× the bytes without it`],
  ]
  if (r.dictionary.file !== null) lines.push(['written to', safeText(r.dictionary.file)])
  const width = Math.max(...lines.map(([k]) => k.length))
  return lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n'
}
