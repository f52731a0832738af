// The pages (tabs) of an origin share one IndexedDB: a save of one page and a save or removal of
// another must not interleave, or one deletes segments the other's manifest lists, or a save
// that began before a sign-out writes its segments after it. They take turns under a Web Lock
// (navigator.locks: Chromium, Firefox, Safari, in secure contexts), and, where a runtime has none
// or refuses it (Node, tests, plain http, an opaque origin), under a lock of this page only.

interface Locks {
  request<T>(name: string, options: { signal?: AbortSignal }, callback: () => Promise<T>): Promise<T>
}

const tails = new Map<string, Promise<void>>()

// Resolves once `before` settled, or after `waitMs`, whichever comes first.
function settledOrAfter(before: Promise<void>, waitMs: number): Promise<void> {
  if (waitMs === Infinity) return before
  let timer: ReturnType<typeof setTimeout> | undefined
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))
  return Promise.race([before, waited]).finally(() => clearTimeout(timer))
}

// The same without Web Locks: each call runs after the one before it with the same name has ended.
function inThisPage<T>(name: string, work: () => Promise<T>, waitMs: number): Promise<T> {
  const run = settledOrAfter(tails.get(name) ?? Promise.resolve(), waitMs).then(work)
  const tail = run.then(
    () => {},
    () => {},
  )
  tails.set(name, tail)
  void tail.then(() => {
    if (tails.get(name) === tail) tails.delete(name)
  })
  return run
}

/**
 * Runs `work` while holding the lock `name`, one holder at a time among every page of the origin.
 * A page that goes away (closed, reloaded) lets go of it.
 *
 * @param name - the lock's name.
 * @param work - what to run; the lock is held until its promise settles.
 * @param waitMs - how long to wait for the lock before running `work` without it. Defaults to no limit.
 * @returns what `work` resolves to.
 */
export async function withPageLock<T>(name: string, work: () => Promise<T>, waitMs = Infinity): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: Locks } }).navigator?.locks
  if (typeof locks?.request !== 'function') return inThisPage(name, work, waitMs)
  let ran = false
  const signal = waitMs === Infinity ? undefined : AbortSignal.timeout(waitMs)
  try {
    return await locks.request(name, signal ? { signal } : {}, () => {
      ran = true
      return work()
    })
  } catch (e) {
    if (ran) throw e
    // Not granted within waitMs: run without it.
    if (signal?.aborted) return work()
    // Refused (an opaque origin, a sandboxed frame: SecurityError): this page's lock.
    return inThisPage(name, work, waitMs)
  }
}
