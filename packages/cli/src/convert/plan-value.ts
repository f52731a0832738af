import { DEFAULT_MAX_DEPTH, encode, inspect, StowageError, type Codec } from '@stowage/core'
import { isManifest } from '../scan/classify.js'
import { jsonMeaningChange } from './json-meaning.js'
import { redisNumber } from './redis-number.js'

/** What `convert` does with one string value. */
export type ValuePlan =
  /** An envelope or a chunk manifest already: skipped. */
  | { readonly action: 'already-stowage' }
  /** A number Redis counts with (INCR, INCRBYFLOAT): skipped, left as it is. */
  | { readonly action: 'counter' }
  /** Not JSON (or not UTF-8): refused, with the parser's reason. */
  | { readonly action: 'invalid'; readonly reason: string }
  /** JSON that would not keep its meaning as an envelope, or that the codec refuses: left as JSON, with the reason. */
  | { readonly action: 'keep-json'; readonly reason: string }
  /** JSON to rewrite as this envelope. */
  | { readonly action: 'convert'; readonly envelope: Uint8Array }

function isEnvelope(value: Uint8Array): boolean {
  if (value[0] !== 0xc1) return false
  if (isManifest(value)) return true
  try {
    inspect(value)
    return true
  } catch {
    return false
  }
}

/** The longest reason kept; a longer one (a codec message with a 2,000-level path) is cut in its middle. */
const REASON_LENGTH = 240

function cut(text: string): string {
  return text.length <= REASON_LENGTH ? text : `${text.slice(0, REASON_LENGTH - 60)} … ${text.slice(-50)}`
}

// Nesting in the text past which a value is refused before the codec sees it: the codec counts
// every array and object of the text as a level at least (RECORDS tables as two), so it refuses
// any value this deep, but naming where takes it seconds for a million levels.
const TEXT_DEPTH_LIMIT = 2 * DEFAULT_MAX_DEPTH

// Strict UTF-8, and a byte order mark kept in the text: JSON.parse refuses it, as an
// application's own JSON.parse of the string would.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Decides what `convert` does with a string value: skip an envelope or a counter (a number INCR
 * or INCRBYFLOAT works on, see redis-number.ts), refuse what is not JSON,
 * leave as JSON what would not keep its meaning (see json-meaning.ts) or what the codec refuses
 * (LIMIT_EXCEEDED past maxDepth, maxItems or maxBytes: the value alone, never the run), else
 * encode it.
 * @param value - the bytes of the value.
 * @param codec - writes the envelope. Defaults to the default codec.
 * @returns the plan; never throws.
 */
export function planValue(value: Uint8Array, codec?: Codec): ValuePlan {
  if (isEnvelope(value)) return { action: 'already-stowage' }
  if (redisNumber(value) !== undefined) return { action: 'counter' }
  let text: string
  let parsed: unknown
  try {
    text = utf8.decode(value)
  } catch {
    return { action: 'invalid', reason: 'not UTF-8' }
  }
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    return { action: 'invalid', reason: cut(e instanceof Error ? e.message : String(e)) }
  }
  const change = jsonMeaningChange(text, TEXT_DEPTH_LIMIT)
  if (change !== undefined) return { action: 'keep-json', reason: change }
  try {
    return { action: 'convert', envelope: codec === undefined ? encode(parsed) : codec.encode(parsed) }
  } catch (e) {
    return { action: 'keep-json', reason: cut(StowageError.isInstance(e) ? `${e.code}: ${e.message}` : `the codec refused it: ${e instanceof Error ? e.message : String(e)}`) }
  }
}
