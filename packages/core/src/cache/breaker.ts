// A circuit breaker in front of a store: after `failures` failed calls within `window` ms the
// circuit opens, and for `coolDown` ms every call fails at once (so a cache goes straight to its
// loader and its in-process tier instead of waiting out a dead server's timeout each time). Then one
// call goes through as a probe (half-open): success closes the circuit, failure opens it again, and
// so does a probe that has not settled within `probeTimeout` (a store call that never returns must
// not hold the circuit half-open, refusing every call, for good).
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import { positiveInteger } from '../stores/validate.js'
import { checkOptionNames } from '../errors/option-names.js'
import { Emitter } from '../events/emitter.js'
import type { Store } from '../stores/store.js'
import { wrapStore } from '../stores/wrap-store.js'

/** Options of the circuit breaker ({@link CacheOptions.breaker}). */
export interface BreakerOptions {
  /** Failed store calls within `window` that open the circuit. Defaults to 5. */
  readonly failures?: number
  /** The window failures are counted in, in ms. Defaults to 10 000. */
  readonly window?: number
  /** How long the circuit stays open before one probe call, in ms. Defaults to 5 000. */
  readonly coolDown?: number
  /**
   * How long the probe call may take, in ms: past it the probe counts as failed (its caller gets
   * STORE_ERROR) and the circuit opens again for `coolDown`. Defaults to 5 000
   * ({@link DEFAULT_BREAKER_PROBE_TIMEOUT}).
   */
  readonly probeTimeout?: number
}

/** The states of a circuit breaker, as its `breaker` events report them. */
export type BreakerState = 'closed' | 'open' | 'half-open'

/** Default of {@link BreakerOptions.failures}. */
export const DEFAULT_BREAKER_FAILURES = 5
/** Default of {@link BreakerOptions.window}. */
export const DEFAULT_BREAKER_WINDOW = 10_000
/** Default of {@link BreakerOptions.coolDown}. */
export const DEFAULT_BREAKER_COOL_DOWN = 5_000
/** Default of {@link BreakerOptions.probeTimeout}. */
export const DEFAULT_BREAKER_PROBE_TIMEOUT = 5_000



// Only a failing backend counts: a refused argument says nothing about the server.
function isOutage(e: unknown): boolean {
  return !StowageError.isInstance(e) || e.code === StowageErrorCode.STORE_ERROR
}

export class CircuitBreaker {
  private state: BreakerState = 'closed'
  private recent: number[] = []
  private openedAt = 0
  private lastError: unknown
  // The probe under way, if any: a probe that timed out and settles late changes nothing.
  private probe: object | undefined
  private readonly events = new Emitter<{ state: { state: BreakerState; error: unknown } }>()
  private readonly failures: number
  private readonly window: number
  private readonly coolDown: number
  private readonly probeTimeout: number

  /** @throws {StowageError} INVALID_ARGUMENT for a bad option. */
  constructor(options: BreakerOptions) {
    if (typeof options !== 'object' || options === null) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'breaker must be true, false or an options object')
    checkOptionNames('breaker', options, ['failures', 'window', 'coolDown', 'probeTimeout'] satisfies ReadonlyArray<keyof BreakerOptions>)
    this.failures = positiveInteger('breaker.failures', options.failures, DEFAULT_BREAKER_FAILURES)
    this.window = positiveInteger('breaker.window', options.window, DEFAULT_BREAKER_WINDOW)
    this.coolDown = positiveInteger('breaker.coolDown', options.coolDown, DEFAULT_BREAKER_COOL_DOWN)
    this.probeTimeout = positiveInteger('breaker.probeTimeout', options.probeTimeout, DEFAULT_BREAKER_PROBE_TIMEOUT)
  }

  /** Listens to state changes; returns a function that stops listening. */
  on(listener: (event: { state: BreakerState; error: unknown }) => void): () => void {
    return this.events.on('state', listener)
  }

  /** `store` with every backend call going through the breaker; the same abilities, the same name. */
  guard(store: Store): Store {
    return wrapStore(store, (_, call) => this.call(call))
  }

  // Closed, the call is the store's own promise with a failure handler: no async frame of its own
  // (a busy server's reads go through here tens of thousands of times a second).
  private call<T>(work: () => Promise<T>): Promise<T> {
    if (this.state === 'open') {
      if (Date.now() - this.openedAt < this.coolDown) return Promise.reject(this.refusal())
      this.move('half-open', undefined)
    } else if (this.state === 'half-open' && this.probe !== undefined) {
      return Promise.reject(this.refusal())
    }
    if (this.state === 'half-open') return this.probeWith(work)
    let pending: Promise<T>
    try {
      pending = work()
    } catch (e) {
      pending = Promise.reject(e)
    }
    return pending.catch(this.noteFailure)
  }

  // The failure handler of every call while closed: one function, not a closure per call.
  private readonly noteFailure = (e: unknown): never => {
    if (isOutage(e)) this.failed(e, false)
    throw e
  }

  // Half-open: this call is the probe, bounded by probeTimeout.
  private async probeWith<T>(work: () => Promise<T>): Promise<T> {
    const probe = {}
    this.probe = probe
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StowageError(StowageErrorCode.STORE_ERROR, `the store did not answer the circuit breaker's probe within ${this.probeTimeout} ms`)),
        this.probeTimeout,
      )
    })
    try {
      const result = await Promise.race([work(), deadline])
      if (this.probe === probe) this.move('closed', undefined)
      return result
    } catch (e) {
      if (this.probe === probe && isOutage(e)) this.failed(e, true)
      throw e
    } finally {
      clearTimeout(timer)
      if (this.probe === probe) this.probe = undefined
    }
  }

  private failed(e: unknown, probe: boolean): void {
    this.lastError = e
    const now = Date.now()
    if (probe) return this.open(e, now)
    this.recent = this.recent.filter((at) => now - at < this.window)
    this.recent.push(now)
    if (this.recent.length >= this.failures) this.open(e, now)
  }

  private open(e: unknown, now: number): void {
    this.openedAt = now
    this.recent = []
    this.move('open', e)
  }

  private move(state: BreakerState, error: unknown): void {
    if (state === this.state && state !== 'open') return
    this.state = state
    this.events.emit('state', { state, error })
  }

  private refusal(): StowageError {
    const left = Math.max(0, this.coolDown - (Date.now() - this.openedAt))
    return new StowageError(StowageErrorCode.STORE_ERROR, `the circuit to the store is open after ${this.failures} failures; the next try in ${left} ms`, { cause: this.lastError })
  }
}
