// Builds a raw-deflate preset dictionary from sample payloads. A dictionary primes deflate's
// window, so a small value can refer back to bytes it shares with values like it (keys, shape
// markers, URL prefixes) instead of spelling them out.
//
// Method (a simplified form of the "cover" approach of zstd's trainer): count, for every k-mer
// (K bytes), how many samples contain it; lay the samples end to end and split them into as many
// epochs as the dictionary has segments; in each epoch take the SEGMENT-byte window whose k-mers
// are shared by the most samples, then forget those k-mers so later segments cover something else. The best segments go
// last, where deflate's distance codes are shortest. Time and memory are linear in the bytes
// looked at, which are capped at MAX_SAMPLED_BYTES (samples are then taken evenly).
import { invalidArgument } from '../errors/make.js'
import { createCodecWith } from './codec.js'
import type { CodecOptions } from './options.js'
import type { Platform } from './platform/platform.js'

/** Options of {@link trainDictionaryFromPayloads}. */
export interface TrainOptions {
  /** The dictionary's size in bytes, 256 to 32768 (deflate's window: more would never be used). Defaults to 16384. */
  readonly size?: number
}

/** Default dictionary size: half of deflate's window leaves room for the value's own history. */
export const DEFAULT_DICTIONARY_SIZE = 16 * 1024
const MIN_SIZE = 256
const MAX_SIZE = 32 * 1024
const K = 8 // bytes per k-mer: long enough to mean something, short enough to recur
const SEGMENT = 64 // bytes per chosen segment
const TABLE_BITS = 20
const MAX_SAMPLED_BYTES = 8 * 1024 * 1024

function kmerHash(data: Uint8Array, at: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < K; i++) h = Math.imul(h ^ (data[at + i] as number), 0x01000193)
  return (h ^ (h >>> 15)) >>> (32 - TABLE_BITS)
}

/** Takes samples evenly until MAX_SAMPLED_BYTES, so huge training sets cost bounded time. */
function pick(samples: readonly Uint8Array[]): Uint8Array[] {
  const total = samples.reduce((sum, s) => sum + s.length, 0)
  if (total <= MAX_SAMPLED_BYTES) return samples.filter((s) => s.length >= K)
  const step = total / MAX_SAMPLED_BYTES
  const out: Uint8Array[] = []
  let budget = 0
  for (const sample of samples) {
    budget += sample.length / step
    if (budget >= sample.length && sample.length >= K) {
      out.push(sample)
      budget -= sample.length
    }
  }
  return out
}

/**
 * Trains a preset dictionary for raw deflate from sample payloads (the bytes that will be deflated).
 * @param samples - payloads like the ones to compress; at least one, each a Uint8Array.
 * @param options - `size`: see {@link TrainOptions}.
 * @returns the dictionary: at most `size` bytes, the most useful last. Deterministic.
 * @throws {StowageError} INVALID_ARGUMENT for no samples, a sample that is not a Uint8Array, a bad
 *   size, or samples that all hold fewer than 8 bytes (nothing to learn from).
 */
export function trainDictionaryFromPayloads(samples: readonly Uint8Array[], options?: TrainOptions): Uint8Array {
  if (!Array.isArray(samples) || samples.length === 0) throw invalidArgument('trainDictionary needs at least one sample')
  if (!samples.every((s) => s instanceof Uint8Array)) throw invalidArgument('every sample must be a Uint8Array')
  const size = options?.size ?? DEFAULT_DICTIONARY_SIZE
  if (typeof size !== 'number' || !Number.isInteger(size) || size < MIN_SIZE || size > MAX_SIZE) {
    throw invalidArgument(`size must be an integer from ${MIN_SIZE} to ${MAX_SIZE}, got ${String(size)}`)
  }
  const chosen = pick(samples)
  // Deflate matches 3 bytes and more, and a shared k-mer is K: values this small have nothing a
  // dictionary could give them (an empty one is no dictionary at all: codecs refuse it).
  if (chosen.length === 0) throw invalidArgument(`nothing to learn from: no sample holds ${K} bytes or more of MessagePack (values this small gain nothing from a dictionary)`)

  // In how many samples each k-mer occurs (lastSeen stops one sample from counting a k-mer twice).
  const counts = new Int32Array(1 << TABLE_BITS)
  const lastSeen = new Int32Array(1 << TABLE_BITS).fill(-1)
  chosen.forEach((sample, index) => {
    for (let i = 0; i + K <= sample.length; i++) {
      const h = kmerHash(sample, i)
      if (lastSeen[h] !== index) {
        lastSeen[h] = index
        counts[h] = (counts[h] as number) + 1
      }
    }
  })
  // A k-mer seen in one sample only is that sample's own business, not something to share.
  for (let h = 0; h < counts.length; h++) if ((counts[h] as number) < 2) counts[h] = 0

  // The samples end to end: segments are searched there (a segment may span two samples, which
  // is fine for a dictionary), in as many epochs as the dictionary has segments.
  const data = new Uint8Array(chosen.reduce((sum, s) => sum + s.length, 0))
  let filled = 0
  for (const sample of chosen) {
    data.set(sample, filled)
    filled += sample.length
  }
  if (data.length <= SEGMENT) return data.slice(Math.max(0, data.length - size))
  const segments = Math.ceil(size / SEGMENT)
  const positions = data.length - SEGMENT + 1
  const epoch = Math.max(1, Math.floor(positions / segments))
  const picked: Array<{ score: number; bytes: Uint8Array }> = []
  for (let from = 0; from < positions && picked.length < segments; from += epoch) {
    const to = Math.min(positions, from + epoch)
    // A sliding sum of the k-mer counts over each SEGMENT-byte window of the epoch.
    let score = 0
    for (let i = from; i < from + SEGMENT - K + 1; i++) score += counts[kmerHash(data, i)] as number
    let best = score
    let bestAt = from
    for (let at = from + 1; at < to; at++) {
      score += (counts[kmerHash(data, at + SEGMENT - K)] as number) - (counts[kmerHash(data, at - 1)] as number)
      if (score > best) {
        best = score
        bestAt = at
      }
    }
    if (best <= 0) continue
    picked.push({ score: best, bytes: data.subarray(bestAt, bestAt + SEGMENT) })
    for (let i = bestAt; i + K <= bestAt + SEGMENT; i++) counts[kmerHash(data, i)] = 0
  }
  // Least useful first, most useful last; cut from the front if the segments overflow `size`.
  picked.sort((a, b) => a.score - b.score)
  if (picked.length === 0) return data.slice(Math.max(0, data.length - size))
  const out = new Uint8Array(Math.min(size, picked.length * SEGMENT))
  let at = out.length
  for (let i = picked.length - 1; i >= 0 && at > 0; i--) {
    const bytes = (picked[i] as { bytes: Uint8Array }).bytes
    const take = Math.min(bytes.length, at)
    out.set(bytes.subarray(bytes.length - take), at - take)
    at -= take
  }
  return out.slice(at)
}

/**
 * {@link trainDictionaryFromPayloads} on sample values, encoded exactly as a codec writes them.
 * @throws {StowageError} INVALID_ARGUMENT; as `encode` for a sample that cannot be stored.
 */
export function trainDictionaryWith(platform: Platform, samples: readonly unknown[], options?: TrainOptions & Pick<CodecOptions, 'extensions'>): Uint8Array {
  if (!Array.isArray(samples)) return trainDictionaryFromPayloads(samples as never, options)
  // An uncompressed envelope without metadata is 8 bytes of header, then the payload.
  const codec = createCodecWith(platform, { compress: 'never', extensions: options?.extensions ?? [] })
  return trainDictionaryFromPayloads(samples.map((value) => codec.encode(value).subarray(8)), options)
}
