// getManyWithTtl, which a Cache with its in-process tier reads getMany through, against what get
// and getMany do (cases found by a review): keys of one Redis slot that ioredis's Cluster places
// apart in a pipeline, and one damaged chunk manifest in a batch.
import { createCache } from '@stowage/core'
import { Cluster, Redis } from 'ioredis'
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { writeManifest } from '../src/chunks.js'
import { keySlot } from '../src/key-slot.js'
import { createRedisStore } from '../src/index.js'

let cluster: Cluster
let raw: Redis
beforeAll(async () => {
  raw = new Redis(inject('redisUrl'))
  cluster = new Cluster(inject('clusterNodes'))
  await new Promise<void>((resolve, reject) => {
    cluster.once('ready', resolve)
    cluster.once('error', reject)
  })
})
afterAll(async () => {
  await cluster.quit()
  await raw.quit()
})

it('ioredis Cluster: getManyWithTtl reads keys of one Redis slot that ioredis places apart, as getMany does', async () => {
  const store = createRedisStore({ client: cluster })
  const odd = `cl-${Math.random().toString(36).slice(2)}:foo{}{bar}`
  let j = 0
  while (keySlot(`cl-pair-${j}`) !== keySlot(odd)) j++
  const keys = [odd, `cl-pair-${j}`]
  await store.setMany(keys.map((key, k) => ({ key, value: new Uint8Array([k]) })))
  expect((await store.getMany(keys)).map((v) => v?.[0])).toStrictEqual([0, 1])
  expect((await store.getManyWithTtl(keys)).map((v) => v?.value[0])).toStrictEqual([0, 1])
})

it('ioredis Cluster: a Cache with its in-process tier reads such keys with getMany as with get', async () => {
  const store = createRedisStore({ client: cluster })
  const odd = `foo{}{bar}`
  let j = 0
  while (keySlot(`c:pair-${j}`) !== keySlot(`c:${odd}`)) j++
  const writer = createCache({ store, namespace: 'c', local: false })
  await writer.set(odd, 1)
  await writer.set(`pair-${j}`, 2)
  const cache = createCache({ store, namespace: 'c' })
  const errors: unknown[] = []
  cache.on('error', (e) => errors.push(e.error.message))
  expect(await Promise.all([odd, `pair-${j}`].map((k) => cache.get(k)))).toStrictEqual([1, 2])
  const fresh = createCache({ store, namespace: 'c' })
  fresh.on('error', (e) => errors.push(e.error.message))
  expect(await fresh.getMany([odd, `pair-${j}`])).toStrictEqual([1, 2])
  expect(errors).toStrictEqual([])
})

for (const mode of ['getMany', 'Promise.all(get)'] as const) {
  it(`one key's damaged chunk manifest costs that key alone (${mode})`, async () => {
    const ns = `rv-${Math.random().toString(36).slice(2)}`
    const store = createRedisStore({ client: raw, chunkSize: 1024 })
    await createCache({ store, namespace: ns, local: false }).set('ok', 1)
    await raw.set(`${ns}:bad`, Buffer.from(writeManifest({ generation: 'ab'.repeat(8), count: 3, length: 10, crc: 0 })))
    const cache = createCache({ store, namespace: ns })
    const keys = ['ok', 'bad']
    const got = mode === 'getMany' ? await cache.getMany(keys) : await Promise.all(keys.map((k) => cache.get(k)))
    expect(got).toStrictEqual([1, undefined])
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, errors: 1 })
  })
}
