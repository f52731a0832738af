import { cacheTag } from 'next/cache'

// A page rendered on every request around a 'use cache' function: its result goes through the
// `cacheHandlers.default` handler (@stowage/next's createUseCacheHandler), so the pid and time show
// which instance computed it, and when.
export const dynamic = 'force-dynamic'

async function quote(id) {
  'use cache'
  cacheTag(`quote-${id}`)
  return `quote ${id} computed by ${process.pid} at ${Date.now()}`
}

export default async function Quote({ params }) {
  const { id } = await params
  return (
    <main>
      <p id="quote">{await quote(id)}</p>
      <p id="page">{`page rendered by ${process.pid} at ${Date.now()}`}</p>
    </main>
  )
}
