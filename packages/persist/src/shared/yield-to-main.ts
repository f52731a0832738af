// Long work is cut into slices so that no main-thread task runs past ~50 ms (the browser's "long
// task"): between slices the page paints and handles input.

/** Default length of one slice of work, in ms: well under the 50 ms of a long task. Defaults to 8. */
export const DEFAULT_SLICE_MS = 8

/**
 * Lets the page run its other tasks: resolves in a new task, queued behind the tasks already
 * waiting. A MessageChannel message, not `setTimeout` (clamped to 4 ms when nested) and not
 * `scheduler.yield()`, whose continuation runs before the page's other tasks of the same priority:
 * with it, a 5,000-query save starved a MessageChannel heartbeat for 1.9 s in Chromium 156
 * although no single task was long (apps/bench, persist-bench.ts).
 *
 * @returns a promise that resolves in a later task.
 */
export function yieldToMain(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      resolve()
    }
    channel.port2.postMessage(null)
  })
}

/** A run of work cut into slices of about `sliceMs`. */
export interface Slicer {
  /** Lets the page run when this slice has lasted `sliceMs`; resolves at once otherwise. */
  pause(): Promise<void>
}

/**
 * A {@link Slicer} whose first slice starts now.
 *
 * @param sliceMs - the longest run of work between two pauses, in ms.
 * @returns a {@link Slicer}.
 */
export function slicer(sliceMs: number): Slicer {
  let start = performance.now()
  return {
    async pause() {
      if (performance.now() - start < sliceMs) return
      await yieldToMain()
      start = performance.now()
    },
  }
}
