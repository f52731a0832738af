// The built package, as users load it: ESM and CJS, each creating its own ioredis client from a url.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, inject, it } from 'vitest'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')

describe('the built package', () => {
  for (const [format, load] of [
    ['ESM', () => import(pathToFileURL(join(dist, 'index.js')).href)],
    ['CJS', async () => createRequire(import.meta.url)(join(dist, 'index.cjs'))],
  ] as const) {
    it(`${format}: createRedisStore({ url }) connects and round-trips bytes`, async () => {
      const { createRedisStore } = (await load()) as typeof import('../src/index.js')
      const store = createRedisStore({ url: inject('redisUrl') })
      const key = `stowage-test:dist:${format}:${Math.random()}`
      await store.set(key, new Uint8Array([1, 2, 3]))
      expect([...((await store.get(key)) as Uint8Array)]).toStrictEqual([1, 2, 3])
      await store.delete(key)
      await store.close()
    })
  }
})
