import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const redis = fileURLToPath(new URL('../../../packages/redis/', import.meta.url))

// The Redis store's own test file (the Store contract over ioredis 5 and 6 and node-redis 5 and 6,
// bytes, TTLs, chunks) against a real Redis; the cluster, fault and lease files stay on Node 20.
export default defineConfig({
  root: redis,
  test: {
    name: 'redis',
    include: ['test/redis-store.test.ts'],
    globalSetup: [fileURLToPath(new URL('./redis-setup.ts', import.meta.url))],
    setupFiles: [fileURLToPath(new URL('./runtime-check.ts', import.meta.url))],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    deps: { interopDefault: !('Bun' in globalThis) },
  },
})
