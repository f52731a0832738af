// A real Next.js 15 app at the lower bound of @stowage/next's peer range (test/next15-app, a
// workspace package of its own so that its `next` is Next 15, not the Next 16 of this package): an
// ISR page, a page around an unstable_cache function, a route that calls revalidatePath or
// revalidateTag. Built and run as two `next start` processes on one Redis of this test's own
// (test/two-next-instances.ts), through the same scenarios as the Next 16 app where Next 15 has
// the feature: 'use cache' is left out, since Next 15.0 turns it on only with
// experimental.dynamicIO, which it refuses outside a canary release.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { expectComputationSharedUntilRevalidateTag, expectRendersWhileRedisIsDown, expectRevalidatePathSeenByTheOther, expectServedByTheOther } from './two-instance-scenarios.js'
import { pause, servedPage, twoNextInstances } from './two-next-instances.js'

const appDir = fileURLToPath(new URL('./next15-app', import.meta.url))
const app = twoNextInstances({ app: appDir, next: `${appDir}/node_modules/.bin/next` })

describe('a Next.js 15 app, two instances on one Redis', () => {
  it("runs the lowest Next 15 of @stowage/next's peer range", () => {
    const { peerDependencies } = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as { peerDependencies: Record<string, string> }
    const lowest15 = /\^(15\.\d+\.\d+)/.exec(peerDependencies.next ?? '')?.[1]
    expect(lowest15).toBeDefined()
    expect(app.nextVersion).toBe(lowest15)
  })

  it('serves a page of generateStaticParams one instance rendered from the other as a HIT, also once older than 1 s: nothing is rendered again', async () => {
    await expectServedByTheOther(app, '/product/1')
  })

  it('a page rendered on demand turns STALE on the other instance once 1 s old, which renders it again: Next 15 keeps its lifetime in the memory of the instance that rendered it', async () => {
    const [a, b] = app.urls
    const first = await servedPage(a, '/product/9')
    expect(first.status).toBe(200)
    await pause(1500)
    expect(await servedPage(b, '/product/9')).toEqual({ status: 200, cache: 'STALE', rendered: first.rendered })
    // B renders it again behind that response and stores its own render, which A then serves.
    await expect.poll(async () => (await servedPage(a, '/product/9')).rendered, { timeout: 10_000 }).not.toBe(first.rendered)
  })

  it('revalidatePath on one instance is seen by the other on its next request, which renders once; the first then serves that', async () => {
    await expectRevalidatePathSeenByTheOther(app, '/product/2')
  })

  it('an unstable_cache function: what one instance computed is what the other renders, until revalidateTag on either; then it is computed once more and shared again', async () => {
    await expectComputationSharedUntilRevalidateTag(app, { path: '/price/7', tag: 'price-7', otherPath: '/price/8' })
  })

  it('renders pages while Redis is down, never an error page, and caches again once it is back', async () => {
    await expectRendersWhileRedisIsDown(app, { down: '/product/3', after: '/product/4' })
  }, 60_000)
})
