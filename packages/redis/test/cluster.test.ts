import { describeStoreContract } from '@stowage/store-contract'
import calculateSlot from 'cluster-key-slot'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { chunkKey } from '../src/chunks.js'
import { createRedisStore } from '../src/index.js'

// A real three-master cluster on loopback, started by global-setup.ts (redis-cli --cluster create).
let cluster: Cluster
beforeAll(async () => {
  cluster = new Cluster(inject('clusterNodes'))
  await new Promise<void>((resolve, reject) => {
    cluster.once('ready', resolve)
    cluster.once('error', reject)
  })
})
afterAll(async () => {
  await cluster.quit()
})

describeStoreContract({ name: 'redis cluster (ioredis Cluster)', createStore: () => createRedisStore({ client: cluster }) })

describe('redis store on a cluster', () => {
  it('batches keys spread over many slots, one round trip per slot', async () => {
    const store = createRedisStore({ client: cluster })
    const p = `cl-${Math.random().toString(36).slice(2)}:`
    const keys = Array.from({ length: 50 }, (_, i) => `${p}${i}`)
    expect(new Set(keys.map((k) => calculateSlot(k))).size).toBeGreaterThan(10)
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
    expect((await mgetCalls()) - before).toBe(new Set(keys.map((k) => calculateSlot(k))).size)
    values.forEach((v, i) => expect([...(v as Uint8Array)]).toStrictEqual([i]))
    expect(await store.deleteMany(keys)).toBe(50)
  })

  it('keeps a chunked value’s chunks in its key’s slot, and reads it back on a cluster', async () => {
    const store = createRedisStore({ client: cluster, chunkSize: 1024 })
    const key = `cl-${Math.random().toString(36).slice(2)}:big`
    const big = new Uint8Array(10_000).map((_, i) => i & 0xff)
    await store.set(key, big)
    expect(calculateSlot(chunkKey(key, '0011223344556677', 3))).toBe(calculateSlot(key))
    expect(await store.get(key)).toStrictEqual(big)
    expect(await store.delete(key)).toBe(true)
  })

  it('lists and clears keys on every master', async () => {
    const store = createRedisStore({ client: cluster })
    const p = `cl-${Math.random().toString(36).slice(2)}:`
    const keys = Array.from({ length: 30 }, (_, i) => `${p}${i}`)
    await store.setMany(keys.map((key) => ({ key, value: new Uint8Array([1]) })))
    const masters = new Set(keys.map((k) => cluster.slots[calculateSlot(k)]?.[0]))
    expect(masters.size).toBe(3)
    const listed: string[] = []
    for await (const k of store.keys(p)) listed.push(k)
    expect(listed.sort()).toStrictEqual([...keys].sort())
    await store.clear(p)
    expect(await store.getMany(keys)).toStrictEqual(keys.map(() => undefined))
  })
})
