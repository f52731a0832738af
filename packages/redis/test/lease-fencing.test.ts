import { createCache, type CacheEvents } from '@stowage/core'
import { Cluster, Redis } from 'ioredis'
import { createCluster } from 'redis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createRedisLease, createRedisStore } from '../src/index.js'
import { leaseKey } from '../src/redis-lease.js'
import { connectClusters } from './clusters.js'
import { ODD_KEYS } from './odd-keys.js'

// A holder whose lease lapses while its loader still runs (a GC pause, a slow source): another
// process takes the lease and stores a newer value; the late holder must not overwrite it.
let raw: Redis
let cluster: Cluster
let nodeCluster: ReturnType<typeof createCluster>
beforeAll(async () => {
  raw = new Redis(inject('redisUrl'))
  ;({ cluster, nodeCluster } = await connectClusters())
})
afterAll(async () => {
  await raw.quit()
  await cluster.quit()
  await nodeCluster.close()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function lateHolder(client: unknown, key: string, value: (who: string) => unknown, chunkSize?: number) {
  const namespace = `fence-${Math.random().toString(36).slice(2)}`
  // Two processes: separate caches, stores and leases over the same Redis.
  const make = () => createCache({ store: createRedisStore({ client, chunkSize }), lease: createRedisLease({ client }), leaseTime: 300, namespace, local: false })
  const a = make()
  const b = make()
  const errors: Array<CacheEvents['error']> = []
  a.on('error', (e) => errors.push(e))
  const slow = a.getOrSet(key, async () => (await sleep(900), value('a, whose lease lapsed')))
  await sleep(500) // a's lease (300 ms) has lapsed; its loader runs on
  let bLoads = 0
  expect(await b.getOrSet(key, async () => (bLoads++, value('b, the new holder')))).toStrictEqual(value('b, the new holder'))
  expect(bLoads).toBe(1)
  // a's caller still gets what its loader gave; the store keeps b's value.
  expect(await slow).toStrictEqual(value('a, whose lease lapsed'))
  expect(await b.get(key)).toStrictEqual(value('b, the new holder'))
  expect(await a.get(key)).toStrictEqual(value('b, the new holder'))
  expect(errors.map((e) => [e.operation, e.error.code])).toStrictEqual([['getOrSet', 'LEASE_LOST']])
  await a.clear()
}

describe('a lease with a fencing token', () => {
  it('a holder whose lease lapsed mid-load does not overwrite the newer holder’s value', async () => {
    await lateHolder(raw, 'k', (who) => `from ${who}`)
  })

  it('the same for a value stored in chunks', async () => {
    // Numbers that deflate cannot shrink below the 1 KiB chunk size.
    const big = (who: string) => ({ who, rows: Array.from({ length: 3000 }, (_, i) => ((i + 1) * 2654435761) % 4294967291) })
    await lateHolder(raw, 'big', big, 1024)
  })

  it('on a cluster, for keys with braces in every position (ioredis and node-redis)', async () => {
    for (const client of [cluster, nodeCluster]) {
      for (const key of ['plain', 'x}y', '{}a{b}', 'a{b}c', '{a']) await lateHolder(client, key, (who) => `from ${who}`)
    }
  }, 60_000)

  it('names each lease key in the slot of its key (CLUSTER KEYSLOT), and can be turned off for a lease kept elsewhere', async () => {
    const keys = ODD_KEYS.flatMap((odd) => [`ns:${odd}`, odd])
    for (const key of keys) expect(await cluster.cluster('KEYSLOT', leaseKey('#lease:', key)), key).toBe(await cluster.cluster('KEYSLOT', key))
    expect(() => createRedisLease({ client: raw, prefix: '{lease}:' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
    const unfenced = await createRedisLease({ client: raw, fence: false }).acquire(`fence-off-${Math.random()}`, 1_000)
    expect(unfenced).toBeTypeOf('function')
    expect(unfenced?.fence).toBeUndefined()
    await unfenced?.()
  })
})
