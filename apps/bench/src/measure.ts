import { Bench } from 'tinybench'

/**
 * Median time of one call of `fn`, in milliseconds, from tinybench samples after warm-up.
 * Big inputs get fewer samples (at least `minSamples`), small ones at least `time` ms of them.
 */
export function medianMs(fn: () => unknown, time = 300, minSamples = 7): number {
  const bench = new Bench({ time, warmupTime: 100, iterations: minSamples, warmupIterations: 3 })
  bench.add('task', fn)
  const [task] = bench.runSync()
  const result = task?.result
  if (result?.state !== 'completed') throw new Error(`benchmark task did not complete: ${result?.state}`)
  return result.latency.p50
}

/** Median time of one call of an async `fn`, in milliseconds; see {@link medianMs}. */
export async function medianMsAsync(fn: () => Promise<unknown>, time = 300, minSamples = 7): Promise<number> {
  const bench = new Bench({ time, warmupTime: 100, iterations: minSamples, warmupIterations: 3 })
  bench.add('task', fn)
  const [task] = await bench.run()
  const result = task?.result
  if (result?.state !== 'completed') throw new Error(`benchmark task did not complete: ${result?.state}`)
  return result.latency.p50
}
