import { createCache, StowageError, StowageErrorCode, type CacheEvents } from '@stowage/core'
import { Redis } from 'ioredis'
import { afterEach, describe, expect, it } from 'vitest'
import { createRedisStore } from '../src/index.js'
import { startRedisServer, type RedisServer } from '@stowage/redis-server'

// Each test starts its own redis-server, kills it mid-run and starts it again on the same port.
let server: RedisServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

async function eventually<T>(attempt: () => Promise<T>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      return await attempt()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

async function timed<T>(work: Promise<T>): Promise<[T | unknown, number]> {
  const started = Date.now()
  const result = await work.catch((e: unknown) => e)
  return [result, Date.now() - started]
}

describe('Redis going away and coming back', () => {
  for (const [name, makeStore] of [
    ['a store with its own connection', (url: string) => ({ store: createRedisStore({ url, commandTimeout: 300 }), client: undefined })],
    [
      'a store over a client with ioredis defaults',
      (url: string) => {
        const client = new Redis(url)
        client.on('error', () => {}) // the application's choice; the store reports failures itself
        return { store: createRedisStore({ client, commandTimeout: 300 }), client }
      },
    ],
  ] as const) {
    it(`${name}: reads miss with an error event, writes reject, nothing hangs, and it recovers`, async () => {
      server = await startRedisServer()
      const { port, url } = server
      const { store, client } = makeStore(url)
      // The store's own failure handling: no in-process tier to answer in its place.
      const cache = createCache({ store, namespace: 'faults', local: false })
      const errors: Array<CacheEvents['error']> = []
      cache.on('error', (e) => errors.push(e))
      await cache.set('k', { alive: true })
      expect(await cache.get('k')).toStrictEqual({ alive: true })

      await server.stop()
      const [read, readMs] = await timed(cache.get('k'))
      expect(read).toBeUndefined()
      expect(readMs).toBeLessThan(2_000)
      expect(errors.at(-1)?.error.code).toBe(StowageErrorCode.STORE_ERROR)
      const [write, writeMs] = await timed(cache.set('k', 2))
      expect(StowageError.isInstance(write) && write.code).toBe(StowageErrorCode.STORE_ERROR)
      expect(writeMs).toBeLessThan(2_000)
      expect(await cache.getOrSet('k', () => 'from the source')).toBe('from the source')

      server = await startRedisServer({ port })
      await eventually(() => cache.set('k', { alive: 'again' }))
      expect(await cache.get('k')).toStrictEqual({ alive: 'again' })
      await store.close()
      await client?.quit()
    })
  }
})
