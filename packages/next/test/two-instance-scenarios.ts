// What every Next.js test app must do as two instances on one Redis (test/two-next-instances.ts),
// written once so the Next 16 and Next 15 apps are held to the same steps. Each takes the paths
// to use; the test files name the behaviour.
import { expect } from 'vitest'
import { pause, revalidate, servedComputation, servedPage, settle, type TwoNextInstances } from './two-next-instances.js'

/**
 * Instance A renders `path`; past Next's 1 s default lifetime (what Next assumes of a page whose
 * lifetime it does not know), instance B serves that render as a HIT, not STALE: nothing rendered again.
 */
export async function expectServedByTheOther(app: TwoNextInstances, path: string): Promise<void> {
  const [a, b] = app.urls
  const first = await servedPage(a, path)
  expect(first.status).toBe(200)
  expect(first.rendered).toBeDefined()
  await pause(1500)
  expect(await servedPage(b, path)).toEqual({ status: 200, cache: 'HIT', rendered: first.rendered })
}

/** revalidatePath on A: B's next request renders once, and A then serves that render as a HIT. */
export async function expectRevalidatePathSeenByTheOther(app: TwoNextInstances, path: string): Promise<void> {
  const [a, b] = app.urls
  const before = await servedPage(a, path)
  expect((await servedPage(b, path)).rendered).toBe(before.rendered)
  expect(await revalidate(a, { path })).toBe(true)
  const after = await servedPage(b, path)
  expect(after.status).toBe(200)
  expect(after.rendered).not.toBe(before.rendered)
  expect(await servedPage(a, path)).toEqual({ status: 200, cache: 'HIT', rendered: after.rendered })
}

/**
 * A cached function's result (`computed by <pid> at <ms>` on `path`, tagged `tag`): what A computed
 * is what B renders, while the page itself renders on every request; after revalidateTag on B, A
 * computes it once more and B renders that; `otherPath` (another id, its own entry) is shared too.
 */
export async function expectComputationSharedUntilRevalidateTag(app: TwoNextInstances, paths: { path: string; tag: string; otherPath: string }): Promise<void> {
  const [a, b] = app.urls
  const { path, tag, otherPath } = paths
  const first = await servedComputation(a, path)
  expect(first.status).toBe(200)
  expect(first.computed).toBeDefined()
  // Next may write the entry after the response (B would compute its own if asked before it
  // lands), and revalidates after the route answered: a pause, then polled.
  await settle()
  await expect.poll(() => servedComputation(b, path), { timeout: 10_000 }).toMatchObject({ status: 200, computed: first.computed })
  const rendered = (await servedComputation(a, path)).rendered
  expect(await servedComputation(a, path)).toMatchObject({ status: 200, computed: first.computed })
  expect((await servedComputation(a, path)).rendered).not.toBe(rendered)
  expect(await revalidate(b, { tag })).toBe(true)
  await expect.poll(async () => (await servedComputation(a, path)).computed, { timeout: 10_000 }).not.toBe(first.computed)
  const again = await servedComputation(a, path)
  expect(again.status).toBe(200)
  expect(again.computed).toMatch(/^\w+ \d+ computed by /)
  await settle()
  await expect.poll(async () => (await servedComputation(b, path)).computed, { timeout: 10_000 }).toBe(again.computed)
  const other = await servedComputation(b, otherPath)
  await settle()
  await expect.poll(async () => (await servedComputation(a, otherPath)).computed, { timeout: 10_000 }).toBe(other.computed)
}

/**
 * With the Redis stopped both instances render `down` (200, never an error page); once it is back
 * (and the store's circuit breaker let a probe through) a render of `after` by A is a HIT on B.
 */
export async function expectRendersWhileRedisIsDown(app: TwoNextInstances, paths: { down: string; after: string }): Promise<void> {
  const [a, b] = app.urls
  await app.stopRedis()
  for (const url of [a, b]) {
    const down = await servedPage(url, paths.down)
    expect(down.status).toBe(200)
    expect(down.rendered).toBeDefined()
  }
  await app.restartRedis()
  // The store's circuit breaker lets a probe through after its cool-down (5 s by default).
  await pause(6_000)
  const deadline = Date.now() + 20_000
  let shared = false
  while (!shared && Date.now() < deadline) {
    const first = await servedPage(a, paths.after)
    const second = await servedPage(b, paths.after)
    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    shared = second.cache === 'HIT' && second.rendered === first.rendered
    if (!shared) await pause(500)
  }
  expect(shared).toBe(true)
}
