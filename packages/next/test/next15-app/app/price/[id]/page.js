import { unstable_cache } from 'next/cache'

// A page rendered on every request around an unstable_cache function tagged `price-<id>`: its
// result is a fetch-cache entry of @stowage/next's cacheHandler, so the pid and time show which
// instance computed it, and when (Next 15's stand-in for the Next 16 app's 'use cache' page).
export const dynamic = 'force-dynamic'

export default async function Price({ params }) {
  const { id } = await params
  const price = unstable_cache(async () => `price ${id} computed by ${process.pid} at ${Date.now()}`, ['price', id], { tags: [`price-${id}`], revalidate: 3600 })
  return (
    <main>
      <p id="price">{await price()}</p>
      <p id="page">{`page rendered by ${process.pid} at ${Date.now()}`}</p>
    </main>
  )
}
