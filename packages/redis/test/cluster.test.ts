import { describeStoreContract } from '@stowage/store-contract'
import { Cluster } from 'ioredis'
import { createCluster } from 'redis'
import { createCluster as createCluster6 } from 'redis6'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { chunkNamer } from '../src/chunk-names.js'
import { keySlot } from '../src/key-slot.js'
import { ODD_KEYS } from './odd-keys.js'
import { createCache } from '@stowage/core'
import { createRedisInvalidation, createRedisLease, createRedisStore } from '../src/index.js'

// A real three-master cluster on loopback, started by global-setup.ts (redis-cli --cluster create).
let cluster: Cluster
let nodeCluster: ReturnType<typeof createCluster>
let nodeCluster6: ReturnType<typeof createCluster6>
beforeAll(async () => {
  cluster = new Cluster(inject('clusterNodes'))
  await new Promise<void>((resolve, reject) => {
    cluster.once('ready', resolve)
    cluster.once('error', reject)
  })
  const rootNodes = inject('clusterNodes').map(({ host, port }) => ({ url: `redis://${host}:${port}` }))
  nodeCluster = createCluster({ rootNodes })
  nodeCluster6 = createCluster6({ rootNodes })
  await Promise.all([nodeCluster.connect(), nodeCluster6.connect()])
})
afterAll(async () => {
  await cluster.quit()
  await Promise.all([nodeCluster.close(), nodeCluster6.close()])
})

describeStoreContract({ name: 'redis cluster (ioredis Cluster)', createStore: () => createRedisStore({ client: cluster }) })
describeStoreContract({ name: 'redis cluster (node-redis 5 createCluster)', createStore: () => createRedisStore({ client: nodeCluster }) })
describeStoreContract({ name: 'redis cluster (node-redis 6 createCluster, RESP3)', createStore: () => createRedisStore({ client: nodeCluster6 }) })

describe('redis store on a cluster', () => {
  it('batches keys spread over many slots, one round trip per slot', async () => {
    const store = createRedisStore({ client: cluster })
    const p = `cl-${Math.random().toString(36).slice(2)}:`
    const keys = Array.from({ length: 50 }, (_, i) => `${p}${i}`)
    expect(new Set(keys.map((k) => keySlot(k))).size).toBeGreaterThan(10)
    // Redis's own counters: how many MGET commands the masters executed.
    const mgetCalls = async () => {
      let total = 0
      for (const node of cluster.nodes('master')) {
        const info = await node.info('commandstats')
        total += Number(/cmdstat_mget:calls=(\d+)/.exec(info)?.[1] ?? 0)
      }
      return total
    }
    await store.setMany(keys.map((key, i) => ({ key, value: new Uint8Array([i]) })))
    const before = await mgetCalls()
    const values = await store.getMany(keys)
    expect((await mgetCalls()) - before).toBe(new Set(keys.map((k) => keySlot(k))).size)
    values.forEach((v, i) => expect([...(v as Uint8Array)]).toStrictEqual([i]))
    expect(await store.deleteMany(keys)).toBe(50)
  })

  it('keeps a chunked value’s chunks in its key’s slot, and reads it back on a cluster', async () => {
    const store = createRedisStore({ client: cluster, chunkSize: 1024 })
    const key = `cl-${Math.random().toString(36).slice(2)}:big`
    const big = new Uint8Array(10_000).map((_, i) => i & 0xff)
    await store.set(key, big)
    expect(keySlot(chunkNamer(key, '0011223344556677')(3))).toBe(keySlot(key))
    expect(await store.get(key)).toStrictEqual(big)
    expect(await store.delete(key)).toBe(true)
  })

  it('lists and clears keys on every master', async () => {
    const store = createRedisStore({ client: cluster })
    const p = `cl-${Math.random().toString(36).slice(2)}:`
    const keys = Array.from({ length: 30 }, (_, i) => `${p}${i}`)
    await store.setMany(keys.map((key) => ({ key, value: new Uint8Array([1]) })))
    const masters = new Set(keys.map((k) => cluster.slots[keySlot(k)]?.[0]))
    expect(masters.size).toBe(3)
    const listed: string[] = []
    for await (const k of store.keys(p)) listed.push(k)
    expect(listed.sort()).toStrictEqual([...keys].sort())
    await store.clear(p)
    expect(await store.getMany(keys)).toStrictEqual(keys.map(() => undefined))
  })

  it('writes, reads and deletes a batch whose keys Redis holds in one slot where ioredis would place one elsewhere (an empty first hash tag)', async () => {
    const store = createRedisStore({ client: cluster })
    // `…foo{}{bar}`: Redis hashes the whole key (its first tag is empty); ioredis's own slot function
    // does not, and refuses a pipeline whose keys it places on two nodes. Each pair below shares
    // Redis's slot; ioredis places the first key on another node than the second in about two
    // pairs of three.
    for (let i = 0; i < 12; i++) {
      const odd = `cl-${Math.random().toString(36).slice(2)}:foo{}{bar}`
      let j = 0
      while (keySlot(`cl-pair-${i}-${j}`) !== keySlot(odd)) j++
      const keys = [odd, `cl-pair-${i}-${j}`]
      await store.setMany(keys.map((key, k) => ({ key, value: new Uint8Array([i, k]) })))
      expect((await store.getMany(keys)).map((v) => [...(v ?? [])])).toStrictEqual([[i, 0], [i, 1]])
      expect(await store.deleteMany(keys)).toBe(2)
    }
  })

  for (const kind of ['ioredis Cluster', 'node-redis 5 createCluster', 'node-redis 6 createCluster'] as const) {
    it(`reads, writes and deletes keys with odd hash tags, one by one and in batches (${kind})`, async () => {
      const client = kind === 'ioredis Cluster' ? cluster : kind === 'node-redis 5 createCluster' ? nodeCluster : nodeCluster6
      const store = createRedisStore({ client })
      const p = `cl-${Math.random().toString(36).slice(2)}:`
      const keys = [...ODD_KEYS.map((k) => p + k), ...ODD_KEYS.map((k) => k + p)]
      await store.setMany(keys.map((key, i) => ({ key, value: new Uint8Array([i]) })))
      expect((await store.getMany(keys)).map((v) => v?.[0])).toStrictEqual(keys.map((_, i) => i))
      for (const [i, key] of keys.entries()) {
        await store.set(key, new Uint8Array([i, i]))
        expect([...((await store.get(key)) ?? [])]).toStrictEqual([i, i])
      }
      expect(await store.deleteMany(keys)).toBe(keys.length)
      expect(await store.getMany(keys)).toStrictEqual(keys.map(() => undefined))
    })

    it(`a lease and an invalidation channel work over a cluster too (${kind})`, async () => {
      const client = kind === 'ioredis Cluster' ? cluster : kind === 'node-redis 5 createCluster' ? nodeCluster : nodeCluster6
      const namespace = `cl-${Math.random().toString(36).slice(2)}`
      const channel = `stowage-test:${namespace}`
      const [ca, cb] = await Promise.all([createRedisInvalidation({ client, channel }), createRedisInvalidation({ client, channel })])
      const lease = createRedisLease({ client })
      const a = createCache({ store: createRedisStore({ client }), namespace, invalidation: ca, lease, local: { ttl: 60_000 } })
      const b = createCache({ store: createRedisStore({ client }), namespace, invalidation: cb, lease, local: { ttl: 60_000 } })
      let loads = 0
      const load = async () => (++loads, 'v1')
      expect(await Promise.all([a.getOrSet('k', load), b.getOrSet('k', load)])).toStrictEqual(['v1', 'v1'])
      expect(loads).toBe(1)
      await a.set('k', 'v2')
      const deadline = Date.now() + 3_000
      while ((await b.get('k')) !== 'v2') {
        if (Date.now() > deadline) throw new Error('the message never came')
        await new Promise((r) => setTimeout(r, 10))
      }
      await a.clear()
      await Promise.all([ca.close(), cb.close()])
    })
  }
})
