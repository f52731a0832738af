// One loader run per key at a time, and one answer for every caller of that key: the loaded value,
// or, when the cache holds an older value (a fallback), that value on a loader error or past the
// soft timeout; a TIMEOUT error past the hard timeout when there is no fallback. The run goes on
// after a timeout answered, so its value still reaches the store; past the hard timeout the key is
// free for a new run.
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'

/** How one flight answers. */
export interface FlightOptions {
  /** An older value to answer with when the run fails or is too slow; `undefined`: none. */
  readonly fallback?: { readonly value: unknown }
  /** Answer with the fallback at once (a background refresh). */
  readonly background?: boolean
  /** With a fallback: answer with it after this many ms, the run going on. */
  readonly softTimeout?: number
  /** Answer with the fallback, or reject with TIMEOUT, after this many ms, the run going on. */
  readonly hardTimeout?: number
}

/**
 * How a flight ended for its callers: the run's value (`loaded`) or error (`failed`), the fallback
 * (`fallback`, with the run's error when that was why), TIMEOUT (`timeout`), or a run that failed
 * after a timeout or a background answer had already been given (`late-error`).
 */
export type FlightOutcome = 'loaded' | 'failed' | 'fallback' | 'timeout' | 'late-error'

export class SingleFlight {
  private readonly flights = new Map<string, Promise<unknown>>()

  /** The answer of the flight running for `key`, if one is. */
  joined(key: string): Promise<unknown> | undefined {
    return this.flights.get(key)
  }

  /**
   * Starts `run` for `key` (the caller checked that none runs) and returns the answer every
   * caller of `key` gets until the run ends. `settled` hears how the answer came about, and the
   * run's error when a fallback answered in its place.
   */
  start(key: string, run: Promise<unknown>, options: FlightOptions, settled: (outcome: FlightOutcome, error?: unknown) => void): Promise<unknown> {
    const { fallback, softTimeout, hardTimeout } = options
    const timers: Array<ReturnType<typeof setTimeout>> = []
    const answer = new Promise<unknown>((resolve, reject) => {
      let done = false
      const finish = (outcome: FlightOutcome, act: () => void, error?: unknown): boolean => {
        if (done) return false
        done = true
        for (const timer of timers) clearTimeout(timer)
        settled(outcome, error)
        act()
        return true
      }
      const useFallback = () => resolve((fallback as { value: unknown }).value)
      run.then(
        (value) => finish('loaded', () => resolve(value)),
        (error: unknown) => {
          const answered = fallback !== undefined ? finish('fallback', useFallback, error) : finish('failed', () => reject(error))
          if (!answered) settled('late-error', error)
        },
      )
      if (fallback !== undefined && options.background) {
        finish('fallback', useFallback)
        return
      }
      if (fallback !== undefined && softTimeout !== undefined) timers.push(setTimeout(() => finish('fallback', useFallback), softTimeout))
      if (hardTimeout !== undefined) {
        const timeout = () =>
          new StowageError(StowageErrorCode.TIMEOUT, `the loader of ${JSON.stringify(key)} did not answer within ${hardTimeout} ms (it goes on, and stores its value when it ends)`)
        timers.push(
          setTimeout(() => {
            // Callers from now on start a run of their own: a loader that never ends holds no key for good.
            this.leave(key, answer)
            if (fallback !== undefined) finish('fallback', useFallback)
            else finish('timeout', () => reject(timeout()))
          }, hardTimeout),
        )
      }
    })
    this.flights.set(key, answer)
    const end = () => this.leave(key, answer)
    run.then(end, end)
    return answer
  }

  /** Callers of `key` from now on start a run of their own (the key was written): the running one answers only those it has. */
  forget(key: string): void {
    this.flights.delete(key)
  }

  /** {@link forget} for every key under `prefix` (`''`: all). */
  forgetAll(prefix: string): void {
    for (const key of [...this.flights.keys()]) if (key.startsWith(prefix)) this.flights.delete(key)
  }

  private leave(key: string, answer: Promise<unknown>): void {
    if (this.flights.get(key) === answer) this.flights.delete(key)
  }
}
