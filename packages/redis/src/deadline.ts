// Every Redis call has a deadline: a paused or unreachable server must never leave a promise
// pending forever. A command that timed out may still be applied if the server resumes (Redis
// executes what it received); callers are told so in the docs.
import { StowageError, StowageErrorCode } from '@stowage/core'

function timeoutError(what: string, ms: number, cause?: () => unknown): StowageError {
  const why = cause?.()
  const reason = why === undefined ? '' : ` (the connection: ${String((why as Error)?.message ?? why)})`
  return new StowageError(StowageErrorCode.STORE_ERROR, `Redis ${what} timed out after ${ms} ms${reason}`, { cause: why })
}

/**
 * `work`, or a STORE_ERROR once `ms` have passed. `cause` names why the connection is down, when
 * known; `onTimeout` hears each timeout.
 * @throws {StowageError} STORE_ERROR on timeout; what `work` throws otherwise.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string, cause?: () => unknown, onTimeout?: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.()
      reject(timeoutError(what, ms, cause))
    }, ms)
  })
  try {
    return await Promise.race([work, timeout])
  } catch (e) {
    work.catch(() => {}) // a late failure of a timed-out call must not become an unhandled rejection
    throw e
  } finally {
    clearTimeout(timer)
  }
}

interface Waiting {
  readonly at: number
  readonly what: string
  // Dropped once the call is settled: an entry stays queued until the timer passes it, and must
  // not keep the reply (a large value, say) alive until then.
  work: Promise<unknown> | undefined
  reject: ((e: unknown) => void) | undefined
}

type Timer = ReturnType<typeof setTimeout> & { ref?: () => unknown; unref?: () => unknown }

/**
 * {@link withDeadline} for the many calls of one store, all with the same `ms`: one timer for all
 * of them instead of a timer and a `Promise.race` per call (a store's reads on a busy server are
 * tens of thousands a second). Calls wait in the order they started, which is the order of their
 * deadlines; the timer is set for the oldest call still waiting, and while none is waiting it
 * does not keep the process alive (where the runtime's timers can say so; elsewhere it stops).
 */
export class Deadlines {
  private queue: Waiting[] = []
  private head = 0
  private waiting = 0
  private timer: Timer | undefined

  /**
   * @param ms - how long each call may take.
   * @param cause - why the connection is down, when known (named in the error).
   * @param onTimeout - hears each timeout.
   * @param answered - hears each call that resolved in time.
   * @param failed - what a call that rejected in time rejects with, from what it was and its error
   *   (one function for every call, instead of a `.then` and its closures per call).
   */
  constructor(
    private readonly ms: number,
    private readonly cause?: () => unknown,
    private readonly onTimeout?: () => void,
    private readonly answered?: () => void,
    private readonly failed?: (what: string, e: unknown) => unknown,
  ) {}

  /**
   * `work`, or a STORE_ERROR once `ms` have passed ("Redis `what` timed out after `ms` ms").
   * @throws {StowageError} STORE_ERROR on timeout; what `work` throws otherwise.
   */
  run<T>(work: Promise<T>, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = { at: performance.now() + this.ms, what, work, reject }
      this.queue.push(entry)
      if (++this.waiting === 1) this.hold()
      work.then(
        (value) => {
          if (!this.settle(entry)) return
          this.answered?.()
          resolve(value)
        },
        (e: unknown) => {
          if (!this.settle(entry)) return
          let error = e
          try {
            if (this.failed !== undefined) error = this.failed(what, e)
          } catch (thrown) {
            // A hook that throws still settles the call, with what it threw.
            error = thrown
          }
          reject(error)
        },
      )
    })
  }

  // Whether `entry` was still waiting (it is not any more).
  private settle(entry: Waiting): boolean {
    if (entry.work === undefined) return false
    entry.work = entry.reject = undefined
    if (--this.waiting === 0) this.release()
    return true
  }

  // A call waits: the timer runs and keeps the process alive.
  private hold(): void {
    if (this.timer === undefined) this.timer = setTimeout(() => this.fire(), this.ms) as Timer
    else this.timer.ref?.()
  }

  // No call waits: the timer may stay set (it is cheaper than setting one per call), but must not
  // keep the process alive; a runtime whose timers cannot be unreferenced stops it.
  private release(): void {
    this.queue = []
    this.head = 0
    if (this.timer?.unref !== undefined) this.timer.unref()
    else this.stop()
  }

  private stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }

  // Times out every call past its deadline, then sets the timer for the oldest one left.
  private fire(): void {
    this.timer = undefined
    const now = performance.now()
    const queue = this.queue
    let expired = 0
    while (this.head < queue.length) {
      const entry = queue[this.head] as Waiting
      const { work, reject } = entry
      if (work !== undefined && entry.at > now) break
      this.head++
      if (work === undefined || reject === undefined) continue
      entry.work = entry.reject = undefined
      expired++
      work.catch(() => {}) // a late failure of a timed-out call must not become an unhandled rejection
      this.onTimeout?.()
      reject(timeoutError(entry.what, this.ms, this.cause))
    }
    if ((this.waiting -= expired) === 0) return this.release()
    if (this.head > 1024 && this.head * 2 > queue.length) {
      this.queue = queue.slice(this.head)
      this.head = 0
    }
    const next = this.queue[this.head] as Waiting
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(next.at - now))) as Timer
  }
}
