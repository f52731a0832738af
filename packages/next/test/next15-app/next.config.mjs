// The Next 15 test app: the Next 16 app's cacheHandler module (test/next-app), so both apps run
// @stowage/next with one configuration, and no in-memory cache of Next's own, so every instance
// reads the shared Redis. No 'use cache': Next 15.0 turns it on only with experimental.dynamicIO,
// which it refuses outside a canary release.
import { fileURLToPath } from 'node:url'

export default {
  cacheHandler: fileURLToPath(new URL('../next-app/cache-handler.mjs', import.meta.url)),
  cacheMaxMemorySize: 0,
}
