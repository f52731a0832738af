// A later task, for work cut into turns so that no task of the page runs long.

/** Runs `fn` in a later task, behind the tasks already queued: a MessageChannel message (setTimeout is clamped to 4 ms when nested). */
export function inLaterTask(fn: () => void): void {
  if (typeof MessageChannel !== 'function') {
    setTimeout(fn, 0)
    return
  }
  const channel = new MessageChannel()
  channel.port1.onmessage = () => {
    channel.port1.close()
    fn()
  }
  channel.port2.postMessage(null)
}
