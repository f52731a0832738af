// The Next.js app of the Next.js pages bench (src/next-pages-bench.ts): one `cacheHandler`
// module whose handler the bench picks per run (BENCH_HANDLER), and no in-memory cache of Next's
// own (cacheMaxMemorySize: 0, for every handler alike), so every instance reads Redis.
import { fileURLToPath } from 'node:url'

export default {
  cacheHandler: fileURLToPath(new URL('./cache-handler.mjs', import.meta.url)),
  cacheMaxMemorySize: 0,
}
