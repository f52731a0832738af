import { createCache } from '@stowage/core'
import { Redis } from 'ioredis'
import { freemem } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisStore } from '../src/index.js'
import { startRedisServer, type RedisServer } from '@stowage/redis-server'

// 600 MB is past Redis's 512 MB proto-max-bulk-len: only chunks can store it. Runs on a server of
// its own so the shared one is never filled; skipped (with the reason) where memory is short.
const SIZE = 600 * 1024 * 1024
const enoughMemory = freemem() > 4 * SIZE

let server: RedisServer
let raw: Redis
beforeAll(async () => {
  if (!enoughMemory) return
  server = await startRedisServer()
  raw = new Redis(server.url)
})
afterAll(async () => {
  await raw?.quit()
  await server?.stop()
})

describe.skipIf(!enoughMemory)('a 600 MB value', () => {
  it('is stored as 8 MiB chunks and read back byte for byte', { timeout: 180_000 }, async () => {
    const store = createRedisStore({ client: raw, commandTimeout: 30_000 })
    const value = new Uint8Array(SIZE)
    for (let i = 0; i < SIZE; i += 4096) value[i] = (i / 4096) & 0xff
    value[SIZE - 1] = 42
    await store.set('huge', value)
    expect(await raw.strlen('huge')).toBe(40) // the manifest
    expect(await raw.dbsize()).toBe(1 + 75) // manifest + 600 MiB / 8 MiB chunks
    const back = (await store.get('huge')) as Uint8Array
    expect(back.length).toBe(SIZE)
    for (let i = 0; i < SIZE; i += 4096) if (back[i] !== value[i]) expect(back[i]).toBe(value[i])
    expect(back[SIZE - 1]).toBe(42)
    expect(await store.delete('huge')).toBe(true)
    // The chunks stay a moment for readers of the old manifest, then expire.
    const chunks = await raw.keys('huge:#chunk:*')
    expect(chunks).toHaveLength(75)
    for (const chunk of chunks) expect(await raw.pttl(chunk)).toBeLessThanOrEqual(30_000)
    expect(await raw.exists('huge')).toBe(0)
    await raw.del(...chunks)
  })

  it('goes through a Cache too (a 600 MB typed array, maxBytes raised)', { timeout: 180_000 }, async () => {
    const cache = createCache({ store: createRedisStore({ client: raw, commandTimeout: 30_000 }), codec: { maxBytes: 2 ** 32 - 1, compress: 'never' } })
    const value = new Float64Array(SIZE / 8).fill(1.5)
    await cache.set('huge', value)
    const back = (await cache.get('huge')) as Float64Array
    expect(back).toBeInstanceOf(Float64Array)
    expect(back.length).toBe(value.length)
    expect(back[back.length - 1]).toBe(1.5)
    await cache.clear()
  })
})
