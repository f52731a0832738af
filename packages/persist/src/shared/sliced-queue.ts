// Work handed over one job at a time (TanStack asks its per-query persister to serialize each query
// on its own, all of a fetch's burst in one task) run in slices: jobs queue, and run in turn until
// a slice has lasted `sliceMs`, then the page runs before the next slice.
import { yieldToMain } from './yield-to-main.js'

/** A queue of jobs run in slices: see {@link slicedQueue}. */
export interface SlicedQueue {
  /** Runs `job` in a later slice, after the jobs queued before it; resolves with what it returns, rejects with what it throws. */
  run<T>(job: () => T): Promise<T>
}

/**
 * A {@link SlicedQueue} whose slices last about `sliceMs`.
 *
 * @param sliceMs - the longest run of jobs between two pauses, in ms.
 * @returns the queue.
 */
export function slicedQueue(sliceMs: number): SlicedQueue {
  const jobs: Array<() => void> = []
  let running = false
  const drain = async () => {
    running = true
    while (jobs.length > 0) {
      await yieldToMain()
      const start = performance.now()
      while (jobs.length > 0 && performance.now() - start < sliceMs) jobs.shift()!()
    }
    running = false
  }
  return {
    run: (job) =>
      new Promise((resolve, reject) => {
        jobs.push(() => {
          try {
            resolve(job())
          } catch (e) {
            reject(e)
          }
        })
        if (!running) void drain()
      }),
  }
}
