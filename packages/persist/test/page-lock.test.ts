// withPageLock: one holder at a time, through Web Locks where the runtime has them and lets this
// page use them, else within the page.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { withPageLock } from '../src/shared/page-lock.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Runs two holders that each take 20 ms; resolves the order in which they started and ended. */
async function twoHolders(name: string): Promise<string[]> {
  const events: string[] = []
  const hold = (who: string) =>
    withPageLock(name, async () => {
      events.push(`${who} in`)
      await sleep(20)
      events.push(`${who} out`)
      return who
    })
  expect(await Promise.all([hold('a'), hold('b')])).toStrictEqual(['a', 'b'])
  return events
}

describe('withPageLock', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('without Web Locks, holders take turns within the page, and a failed holder lets the next one in', async () => {
    vi.stubGlobal('navigator', undefined)
    expect(await twoHolders('plain')).toStrictEqual(['a in', 'a out', 'b in', 'b out'])
    const failed = withPageLock('plain', () => Promise.reject(new Error('boom')))
    await expect(failed).rejects.toThrow('boom')
    expect(await withPageLock('plain', async () => 'next')).toBe('next')
  })

  it('uses navigator.locks where there is one', async () => {
    const request = vi.fn((_name: string, _options: object, callback: () => Promise<unknown>) => callback())
    vi.stubGlobal('navigator', { locks: { request } })
    expect(await withPageLock('web', async () => 'done')).toBe('done')
    expect(request).toHaveBeenCalledOnce()
    expect(request.mock.calls[0]![0]).toBe('web')
  })

  it('falls back to the page when Web Locks refuse the page (an opaque origin), running the work once', async () => {
    const refused = Object.assign(new Error('The request was denied.'), { name: 'SecurityError' })
    vi.stubGlobal('navigator', { locks: { request: () => Promise.reject(refused) } })
    let runs = 0
    expect(
      await withPageLock('opaque', async () => {
        runs++
        return 'ran'
      }),
    ).toBe('ran')
    expect(runs).toBe(1)
  })

  it('passes on the error of work that ran under a Web Lock, without running it again', async () => {
    vi.stubGlobal('navigator', { locks: { request: (_name: string, _options: object, callback: () => Promise<unknown>) => callback() } })
    let runs = 0
    await expect(
      withPageLock('web', async () => {
        runs++
        throw new Error('store failed')
      }),
    ).rejects.toThrow('store failed')
    expect(runs).toBe(1)
  })

  it('runs the work without the lock once waitMs passed, within the page and under Web Locks', async () => {
    vi.stubGlobal('navigator', undefined)
    let unstick!: () => void
    const stuck = withPageLock('stuck', () => new Promise<void>((r) => (unstick = r)))
    const started = performance.now()
    expect(await withPageLock('stuck', async () => 'ran anyway', 50)).toBe('ran anyway')
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
    unstick()
    await stuck
    // A Web Lock held elsewhere: the request is aborted at waitMs, and the work runs once.
    const request = (_name: string, options: { signal?: AbortSignal }, _callback: () => Promise<unknown>) =>
      new Promise((_, reject) => options.signal?.addEventListener('abort', () => reject(options.signal!.reason)))
    vi.stubGlobal('navigator', { locks: { request } })
    let runs = 0
    expect(
      await withPageLock(
        'held',
        async () => {
          runs++
          return 'ran anyway'
        },
        50,
      ),
    ).toBe('ran anyway')
    expect(runs).toBe(1)
  })
})
