// A real Next.js 16 app (test/next-app: an ISR page rendered on demand, a page around a 'use cache'
// function, a route that calls revalidatePath or revalidateTag), built with `next build` and run as
// two `next start` processes on one Redis of this test's own (test/two-next-instances.ts).
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { expectComputationSharedUntilRevalidateTag, expectRendersWhileRedisIsDown, expectRevalidatePathSeenByTheOther, expectServedByTheOther } from './two-instance-scenarios.js'
import { twoNextInstances } from './two-next-instances.js'

const app = twoNextInstances({
  app: fileURLToPath(new URL('./next-app', import.meta.url)),
  next: fileURLToPath(new URL('../node_modules/.bin/next', import.meta.url)),
})

describe('a Next.js 16 app, two instances on one Redis', () => {
  it('runs Next 16', () => {
    expect(app.nextVersion).toMatch(/^16\./)
  })

  it('serves a page one instance rendered on demand from the other as a HIT, also once older than 1 s: the entry keeps its cacheControl, nothing is rendered again', async () => {
    await expectServedByTheOther(app, '/product/1')
  })

  it('revalidatePath on one instance is seen by the other on its next request, which renders once; the first then serves that', async () => {
    await expectRevalidatePathSeenByTheOther(app, '/product/2')
  })

  it('a use cache function: what one instance computed is what the other renders, until revalidateTag on either; then it is computed once more and shared again', async () => {
    await expectComputationSharedUntilRevalidateTag(app, { path: '/quote/7', tag: 'quote-7', otherPath: '/quote/8' })
  })

  it('renders pages while Redis is down, never an error page, and caches again once it is back', async () => {
    await expectRendersWhileRedisIsDown(app, { down: '/product/3', after: '/product/4' })
  }, 60_000)
})
