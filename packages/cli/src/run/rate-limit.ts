/**
 * Keeps work under `rate` items a second: after each batch, waits until the items done so far
 * would have taken that long at the rate. The wait ends early when `signal` aborts.
 */
export class RateLimit {
  private readonly started = Date.now()

  /**
   * @param rate - items per second; Infinity for no limit.
   * @param signal - ends a wait at once.
   */
  constructor(
    private readonly rate: number,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Waits as long as the rate asks.
   * @param done - items done so far.
   */
  async pace(done: number): Promise<void> {
    if (!Number.isFinite(this.rate)) return
    const wait = this.started + (done / this.rate) * 1000 - Date.now()
    if (wait <= 0 || this.signal.aborted) return
    const signal = this.signal
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', finish)
        resolve()
      }
      const timer = setTimeout(finish, wait)
      signal.addEventListener('abort', finish)
    })
  }
}
