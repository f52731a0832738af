// Long work is cut into slices so that no main-thread task runs past ~50 ms (the browser's "long
// task"): between slices the page paints and handles input.

/** Default length of one slice of work, in ms: well under the 50 ms of a long task. Defaults to 8. */
export const DEFAULT_SLICE_MS = 8

interface Scheduler {
  yield?: () => Promise<void>
}

/**
 * Lets the browser run other tasks: `scheduler.yield()` where there is one (Chromium 129+: the
 * continuation keeps its priority), else a macrotask.
 *
 * @returns a promise that resolves in a later task.
 */
export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler
  if (typeof scheduler?.yield === 'function') return scheduler.yield()
  return new Promise((resolve) => setTimeout(resolve, 0))
}
