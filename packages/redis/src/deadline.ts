// Every Redis call has a deadline: a paused or unreachable server must never leave a promise
// pending forever. A command that timed out may still be applied if the server resumes (Redis
// executes what it received); callers are told so in the docs.
import { StowageError, StowageErrorCode } from '@stowage/core'

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
      const why = cause?.()
      const reason = why === undefined ? '' : ` (the connection: ${String((why as Error)?.message ?? why)})`
      reject(new StowageError(StowageErrorCode.STORE_ERROR, `Redis ${what} timed out after ${ms} ms${reason}`, { cause: why }))
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
