import { afterEach, describe, expect, it, vi } from 'vitest'
import { CLOCK_MARGIN, RECENT_WRITE_WINDOW, RecentWrites } from '../src/cache/recent-writes.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('RecentWrites: what a cache deletes again after another process cleared a prefix', () => {
  it('names the keys written under the prefix since the clear began (less the clock margin), each once, once they have landed', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] })
    const recent = new RecentWrites()
    let land: () => void = () => {}
    const landing = new Promise<void>((resolve) => (land = resolve))
    recent.record('app:user-1:a', Promise.resolve())
    vi.setSystemTime(1_000_000 + 2 * CLOCK_MARGIN)
    recent.record('app:user-1:b', landing)
    recent.record('app:user-1:b', Promise.reject(new Error('a failed write counts as landed')))
    recent.record('app:user-2:c', Promise.resolve())
    const { keys, landed } = recent.since('app:user-1:', 1_000_000 + 2 * CLOCK_MARGIN + CLOCK_MARGIN / 2)
    expect(keys).toStrictEqual(['app:user-1:b'])
    let settled = false
    void landed.then(() => (settled = true))
    await Promise.resolve()
    expect(settled).toBe(false)
    land()
    await landed
    // Named once: a repeated (or hostile) message deletes nothing twice.
    expect(recent.since('app:user-1:', 0).keys).toStrictEqual(['app:user-1:a'])
    expect(recent.since('app:', 0).keys).toStrictEqual(['app:user-2:c'])
    // Never past the window, however early `since` says the clear began.
    recent.record('app:user-3:d', Promise.resolve())
    vi.setSystemTime(1_000_000 + 2 * CLOCK_MARGIN + RECENT_WRITE_WINDOW + 1)
    expect(recent.since('app:', -Infinity).keys).toStrictEqual([])
  })

  it(`forgets writes older than ${RECENT_WRITE_WINDOW / 1000} s, and keeps at most the newest 4,096`, () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date'] })
    const recent = new RecentWrites()
    recent.record('old', Promise.resolve())
    vi.setSystemTime(1_000_000 + RECENT_WRITE_WINDOW + 1)
    for (let i = 0; i < 10_000; i++) recent.record(`k${i}`, Promise.resolve())
    const { keys } = recent.since('', 0)
    expect(keys).toHaveLength(4096)
    expect(keys[0]).toBe('k5904')
    expect(keys.at(-1)).toBe('k9999')
  })
})
