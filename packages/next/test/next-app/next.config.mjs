// The test app: both of Next's cache handlers on @stowage/next, no in-memory cache of Next's own,
// so every instance reads the shared Redis; 'use cache' on (experimental.useCache) without Cache
// Components, so that the ISR page keeps its route segment config.
import { fileURLToPath } from 'node:url'

export default {
  cacheHandler: fileURLToPath(new URL('./cache-handler.mjs', import.meta.url)),
  cacheHandlers: { default: fileURLToPath(new URL('./use-cache-handler.mjs', import.meta.url)) },
  cacheMaxMemorySize: 0,
  experimental: { useCache: true },
  typescript: { ignoreBuildErrors: true },
}
