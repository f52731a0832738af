/** One sampled JSON value: its size and its key's memory, as JSON and as an envelope. */
export interface RatioSample {
  readonly jsonBytes: number
  readonly stowageBytes: number
  /** MEMORY USAGE of the key as it is. */
  readonly memory: number
  /** The same with the envelope instead (see redis-memory.ts). */
  readonly memoryAsStowage: number
  /** The parsed value, kept to train a dictionary on the sample. */
  readonly value?: unknown
}

/** A pair for {@link estimateRatio}: x as it is, y as it would be. */
export interface Pair {
  readonly x: number
  readonly y: number
}

/** The ratio Σy / Σx over a population (Stowage bytes to JSON bytes), estimated from a simple random sample. */
export interface RatioEstimate {
  /** Σy / Σx over the sample: the estimate. */
  readonly ratio: number
  /** Its 95% confidence interval (normal approximation), or undefined below 2 samples. */
  readonly low: number | undefined
  readonly high: number | undefined
  readonly sampleSize: number
  readonly population: number
}

/** z for a two-sided 95% interval. */
const Z95 = 1.959964

/**
 * The ratio estimator Σy/Σx with its linearised standard error and the finite population
 * correction (Cochran, Sampling Techniques, §6.4): the right one for "what would all these bytes
 * take", where large values weigh more than small ones.
 * @param samples - a simple random sample of the population.
 * @param population - how many values the sample was drawn from.
 * @returns the estimate, or undefined for an empty sample.
 */
export function estimateRatio(samples: readonly Pair[], population: number): RatioEstimate | undefined {
  const n = samples.length
  if (n === 0) return undefined
  let sx = 0
  let sy = 0
  for (const s of samples) {
    sx += s.x
    sy += s.y
  }
  if (sx === 0) return undefined
  const ratio = sy / sx
  if (n < 2) return { ratio, low: undefined, high: undefined, sampleSize: n, population }
  let ss = 0
  for (const s of samples) ss += (s.y - ratio * s.x) ** 2
  const meanX = sx / n
  const fpc = Math.max(0, 1 - n / Math.max(n, population))
  const se = Math.sqrt((fpc * ss) / (n - 1) / n) / meanX
  return { ratio, low: Math.max(0, ratio - Z95 * se), high: ratio + Z95 * se, sampleSize: n, population }
}
