import { startFaultProxy, type FaultProxy } from '@stowage/fault-proxy'
import { startRedisServer, type RedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isChunkName } from '../src/chunk-names.js'
import { readManifest, startsWithMagic } from '../src/chunks.js'
import { createRedisStore } from '../src/index.js'

// A redis-server of our own (the checks look at every key it holds), and a TCP proxy that slows a
// writer down between its steps, as a GC pause or a slow network would.
let server: RedisServer
let proxy: FaultProxy
let direct: Redis
// Clients through the proxy, dropped after each test whatever its outcome.
const proxied: Redis[] = []
beforeEach(async () => {
  server = await startRedisServer()
  proxy = await startFaultProxy(server.port)
  direct = new Redis(server.url)
})
afterEach(async () => {
  for (const client of proxied.splice(0)) client.disconnect()
  await direct.quit()
  await proxy.close()
  await server.stop()
})

function throughProxy(): Redis {
  const client = new Redis(proxy.url)
  proxied.push(client)
  return client
}

const chunkSize = 1024
const value = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 31 + seed) & 0xff)

// Chunks with no TTL that no manifest names: they would stay for ever.
async function orphans(): Promise<string[]> {
  const live = new Set<string>()
  const chunks: string[] = []
  for (const key of await direct.keys('*')) {
    if (isChunkName(key)) {
      chunks.push(key)
      continue
    }
    const bytes = await direct.getBuffer(key)
    if (bytes !== null && startsWithMagic(bytes)) live.add(readManifest(new Uint8Array(bytes))!.generation)
  }
  const ttls = await Promise.all(chunks.map((k) => direct.pttl(k)))
  return chunks.filter((chunk, i) => ttls[i] === -1 && ![...live].some((generation) => chunk.includes(`:#chunk:${generation}:`)))
}

describe('chunked writes racing deletes', () => {
  it('a delete that lands between the manifest swap and the PERSIST of the chunks leaves no chunk without TTL', async () => {
    const writer = createRedisStore({ client: throughProxy(), chunkSize })
    const deleter = createRedisStore({ client: direct, chunkSize })
    // Every byte to or from the writer waits 150 ms: after Redis swaps the manifest in, the
    // writer's next step reaches Redis no sooner than 300 ms later.
    proxy.latency(150)
    const writing = writer.set('big', value(5000, 1))
    const deadline = Date.now() + 10_000
    while ((await direct.exists('big')) === 0) {
      if (Date.now() > deadline) throw new Error('the manifest never landed')
      await new Promise((r) => setTimeout(r, 2))
    }
    expect(await deleter.delete('big')).toBe(true)
    await writing
    proxy.latency(0)
    expect(await orphans()).toStrictEqual([])
    const chunks = (await direct.keys('*')).filter(isChunkName)
    expect(chunks).toHaveLength(5)
    expect((await Promise.all(chunks.map((k) => direct.pttl(k)))).every((t) => t > 0 && t <= 30_000)).toBe(true)
  })

  it('writers with and without TTL and deleters interleaved on one key never leave a chunk without TTL and without manifest', async () => {
    proxy.latency(3)
    const stores = [createRedisStore({ client: throughProxy(), chunkSize }), createRedisStore({ client: direct, chunkSize })]
    const work: Array<Promise<unknown>> = []
    for (let round = 0; round < 40; round++) {
      const store = stores[round % 2]!
      const op = round % 5
      if (op === 4) work.push(store.delete('k'))
      else if (op === 3) work.push(store.set('k', value(10, round)))
      else work.push(store.set('k', value(3000 + round, round), op === 0 ? { ttl: 60_000 } : undefined))
      await new Promise((r) => setTimeout(r, round % 3))
    }
    await Promise.all(work)
    proxy.latency(0)
    expect(await orphans()).toStrictEqual([])
  })
})
