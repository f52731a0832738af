import { createCache, StowageErrorCode, type Cache, type CacheEvents } from '@stowage/core'
import { startFaultProxy, type FaultProxy } from '@stowage/fault-proxy'
import { startRedisServer, type RedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createRedisStore, type RedisStore } from '../src/index.js'

// A redis-server of our own behind a proxy that adds latency, stalls, resets and half-opens the
// connections. The Cache must keep answering (hits, misses, typed errors), recover once the
// network does, and never lose a write it acknowledged.
let server: RedisServer
let proxy: FaultProxy
let direct: Redis
beforeEach(async () => {
  server = await startRedisServer()
  proxy = await startFaultProxy(server.port)
  direct = new Redis(server.url)
})
afterEach(async () => {
  await direct.quit()
  await proxy.close()
  await server.stop()
})

const TIMEOUT = 300

async function timed<T>(work: Promise<T>): Promise<[T | unknown, number]> {
  const started = Date.now()
  const result = await work.catch((e: unknown) => e)
  return [result, Date.now() - started]
}

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error('never recovered')
    await new Promise((r) => setTimeout(r, 50))
  }
}

function setup(): { store: RedisStore; cache: Cache; errors: Array<CacheEvents['error']> } {
  // The store's own connection, so the store may re-dial it; the breaker off, to see every failure.
  const store = createRedisStore({ url: proxy.url, commandTimeout: TIMEOUT })
  const cache = createCache({ store, namespace: 'net', breaker: false, local: false })
  const errors: Array<CacheEvents['error']> = []
  cache.on('error', (e) => errors.push(e))
  return { store, cache, errors }
}

describe('network faults between the cache and Redis', () => {
  it('latency past the deadline: reads miss with STORE_ERROR in time, writes reject; all well once it drops', async () => {
    const { store, cache, errors } = setup()
    await cache.set('k', 1)
    proxy.latency(TIMEOUT * 2)
    const [read, ms] = await timed(cache.get('k'))
    expect(read).toBeUndefined()
    expect(ms).toBeLessThan(TIMEOUT + 500)
    expect(errors.at(-1)?.error.code).toBe(StowageErrorCode.STORE_ERROR)
    await expect(cache.set('k', 2)).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR })
    proxy.latency(0)
    await eventually(async () => (await cache.get('k')) !== undefined)
    // The write that timed out was sent all the same and ran late: 2, never a lost 1 (documented).
    expect(await cache.get('k')).toBe(2)
    await store.close()
  })

  it('a stall (the network holds every byte), then it heals: calls reject in time, then answer; acknowledged writes are there', async () => {
    const { store, cache } = setup()
    await cache.set('acked', 'yes')
    proxy.mode('stall')
    for (const call of [() => cache.set('during', 1), () => store.get('net:acked'), () => store.set('net:x', new Uint8Array([1]))] as Array<() => Promise<unknown>>) {
      const [result, ms] = await timed(call())
      expect((result as { code?: string }).code).toBe(StowageErrorCode.STORE_ERROR)
      expect(ms).toBeLessThan(TIMEOUT + 500)
    }
    proxy.mode('pass')
    await eventually(async () => (await cache.get('acked')) === 'yes')
    await cache.set('after', 'fine')
    expect(await cache.get('after')).toBe('fine')
    await store.close()
  })

  it('resets: in-flight calls fail with STORE_ERROR, then the cache answers again on a new connection', async () => {
    const { store, cache } = setup()
    await cache.set('k', 'v')
    proxy.reset()
    await cache.get('k') // a miss or a hit, never a hang or a crash
    await eventually(async () => (await cache.get('k')) === 'v')
    for (let i = 0; i < 5; i++) {
      proxy.reset()
      await eventually(async () => {
        await cache.set(`n${i}`, i)
        return (await cache.get(`n${i}`)) === i
      })
    }
    expect(await direct.exists('net:n4')).toBe(1)
    await store.close()
  })

  it('half-open connections (no FIN, no RST, no reply): calls reject in time, and the store re-dials', async () => {
    const { store, cache } = setup()
    await cache.set('k', 'v')
    proxy.halfOpen()
    // Three timeouts in a row, then the store drops the dead connection and dials again.
    for (let i = 0; i < 3; i++) {
      const [result, ms] = await timed(cache.get('k'))
      expect(result).toBeUndefined()
      expect(ms).toBeLessThan(TIMEOUT + 500)
    }
    await eventually(async () => (await cache.get('k')) === 'v')
    await store.close()
  })

  it('refused connections: misses and typed errors, then back once the server takes connections', async () => {
    const { store, cache } = setup()
    await cache.set('k', 'v')
    proxy.mode('refuse')
    proxy.reset()
    const [read, ms] = await timed(cache.get('k'))
    expect(read).toBeUndefined()
    expect(ms).toBeLessThan(TIMEOUT + 500)
    proxy.mode('pass')
    await eventually(async () => (await cache.get('k')) === 'v')
    await store.close()
  })
})
