import { inspect, StowageError, StowageErrorCode, type EnvelopeInfo } from '@stowage/core'
import { decodeExplained } from './decode-explained.js'
import { equivalentJsonBytes } from '../format/equivalent-json.js'

/** What `stowage inspect` finds in some bytes. */
export interface Inspection {
  /** The header, when it could be read. */
  readonly header?: EnvelopeInfo
  /** `ok` when the envelope decoded (its CRC matched), `mismatch` on CHECKSUM_MISMATCH, else `unchecked`. */
  readonly crc: 'ok' | 'mismatch' | 'unchecked'
  /** Whether a value was decoded (then `value` holds it). */
  readonly decoded: boolean
  readonly value?: unknown
  /** Bytes of the equivalent JSON (see equivalentJsonBytes), when decoded. */
  readonly jsonBytes?: number
  /** The first failure: from the header, or from decoding. */
  readonly error?: StowageError
}

/**
 * Reads the header, then decodes and checks the whole envelope.
 * @param bytes - what to inspect.
 * @param dictionary - the preset dictionary the envelope names, when the store holds it.
 * @returns the findings; failures are in `error`, never thrown.
 */
export function inspectBytes(bytes: Uint8Array, dictionary?: Uint8Array): Inspection {
  let header: EnvelopeInfo
  try {
    header = inspect(bytes)
  } catch (e) {
    return { crc: 'unchecked', decoded: false, error: asStowageError(e) }
  }
  try {
    const value = decodeExplained(bytes, dictionary)
    return { header, crc: 'ok', decoded: true, value, jsonBytes: equivalentJsonBytes(value) }
  } catch (e) {
    const error = asStowageError(e)
    return { header, crc: error.code === StowageErrorCode.CHECKSUM_MISMATCH ? 'mismatch' : 'unchecked', decoded: false, error }
  }
}

function asStowageError(e: unknown): StowageError {
  return StowageError.isInstance(e) ? e : new StowageError(StowageErrorCode.CORRUPT, e instanceof Error ? e.message : String(e), { cause: e })
}
