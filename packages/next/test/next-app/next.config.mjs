// The test app: both of Next's cache handlers on @stowage/next, no in-memory cache of Next's own,
// so every instance reads the shared Redis.
import { fileURLToPath } from 'node:url'

export default {
  cacheHandler: fileURLToPath(new URL('./cache-handler.mjs', import.meta.url)),
  cacheHandlers: { default: fileURLToPath(new URL('./use-cache-handler.mjs', import.meta.url)) },
  cacheMaxMemorySize: 0,
  typescript: { ignoreBuildErrors: true },
}
