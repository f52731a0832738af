// What a bench page measures of its main thread while a piece of work runs.

// Measures the main thread while `work` runs: long tasks as the browser reports them, and the
// longest gap between turns of a heartbeat (a MessageChannel posting to itself, unclamped).
export async function watchMainThread<T>(work: () => Promise<T>): Promise<{ result: T; longestTaskMs: number; ms: number }> {
  let longTaskMs = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTaskMs = Math.max(longTaskMs, entry.duration)
  })
  observer.observe({ type: 'longtask', buffered: false })
  const channel = new MessageChannel()
  let last = performance.now()
  let longestGapMs = 0
  let beating = true
  channel.port1.onmessage = () => {
    const now = performance.now()
    longestGapMs = Math.max(longestGapMs, now - last)
    last = now
    if (beating) channel.port2.postMessage(0)
  }
  channel.port2.postMessage(0)
  const t = performance.now()
  const result = await work()
  const ms = performance.now() - t
  beating = false
  await new Promise((r) => setTimeout(r, 200)) // long-task entries are delivered after the task
  observer.disconnect()
  channel.port1.close()
  return { result, longestTaskMs: Math.max(longTaskMs, longestGapMs), ms }
}
