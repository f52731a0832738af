import type { EnvelopeInfo } from '@stowage/core'
import type { KeyKind } from './classify.js'
import { Reservoir } from './reservoir.js'
import type { RatioSample } from './ratio-estimate.js'
import { TopKeys } from './top-keys.js'

/** Keys, memory and value bytes of one kind. */
export interface KindStats {
  keys: number
  /** Σ MEMORY USAGE. */
  memory: number
  /** Σ STRLEN (strings only). */
  bytes: number
}

/** What `scan` has counted so far: aggregates, the largest keys and a sample, never the key list. */
export class ScanStats {
  readonly kinds: Record<KeyKind, KindStats> = {
    stowage: { keys: 0, memory: 0, bytes: 0 },
    json: { keys: 0, memory: 0, bytes: 0 },
    string: { keys: 0, memory: 0, bytes: 0 },
    other: { keys: 0, memory: 0, bytes: 0 },
  }
  /** Keys of other types, by Redis type. */
  readonly otherTypes: Record<string, number> = {}
  /** Envelopes by compression, and their payload against stored bytes (headers read in full only). */
  readonly envelopes = { byCompression: {} as Record<string, number>, payloadBytes: 0, storedBytes: 0, manifests: 0, chunks: 0 }
  /** Keys SCAN returned that were gone by the time they were read. */
  vanished = 0
  /** Sampled JSON values that did not parse, or were too large to sample. */
  sampleInvalid = 0
  /** Sampled JSON values the codec refuses (nested past maxDepth, too many items, …). */
  sampleRefused = 0
  sampleTooLarge = 0
  readonly top: TopKeys
  /** JSON keys sampled for the estimate, each measured as JSON and as an envelope. */
  readonly sample: Reservoir<string, RatioSample>

  /**
   * @param topSize - how many of the largest keys to keep.
   * @param sampleSize - how many JSON values to re-encode for the estimate.
   */
  constructor(topSize: number, sampleSize: number) {
    this.top = new TopKeys(topSize)
    this.sample = new Reservoir(sampleSize)
  }

  /** @returns keys counted, all kinds. */
  get keys(): number {
    const k = this.kinds
    return k.stowage.keys + k.json.keys + k.string.keys + k.other.keys
  }

  /**
   * Counts one key.
   * @param kind - its kind.
   * @param memory - its MEMORY USAGE.
   * @param bytes - its STRLEN (0 for other types).
   */
  add(kind: KeyKind, memory: number, bytes: number): void {
    const s = this.kinds[kind]
    s.keys++
    s.memory += memory
    s.bytes += bytes
  }

  /**
   * Counts an envelope's header.
   * @param header - its header, with `byteLength` the whole envelope's.
   */
  addEnvelope(header: EnvelopeInfo): void {
    const e = this.envelopes
    e.byCompression[header.compression] = (e.byCompression[header.compression] ?? 0) + 1
    e.payloadBytes += header.payloadLength
    e.storedBytes += header.byteLength
  }
}
