// The pages (tabs) of an origin share one IndexedDB: a save of one page and a save or removal of
// another must not interleave, or one deletes segments the other's manifest lists, or a save
// that began before a sign-out writes its segments after it. They take turns under a Web Lock
// (navigator.locks: Chromium, Firefox, Safari, in secure contexts), and, where a runtime has none
// or refuses it (Node, tests, plain http, an opaque origin), under a lock of this page only.

interface Locks {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>
}

const tails = new Map<string, Promise<void>>()

// The same without Web Locks: each call runs after the one before it with the same name has ended.
function inThisPage<T>(name: string, work: () => Promise<T>): Promise<T> {
  const run = (tails.get(name) ?? Promise.resolve()).then(work)
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
 * @returns what `work` resolves to.
 */
export async function withPageLock<T>(name: string, work: () => Promise<T>): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: Locks } }).navigator?.locks
  if (typeof locks?.request !== 'function') return inThisPage(name, work)
  let ran = false
  try {
    return await locks.request(name, () => {
      ran = true
      return work()
    })
  } catch (e) {
    // Refused before it ran (an opaque origin, a sandboxed frame: SecurityError): this page's lock.
    if (ran) throw e
    return inThisPage(name, work)
  }
}
