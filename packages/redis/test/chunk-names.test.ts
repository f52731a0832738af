import { Cluster, Redis } from 'ioredis'
import { createCluster } from 'redis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { checksum, readManifest, writeManifest } from '../src/chunks.js'
import { createRedisStore } from '../src/index.js'
import { connectClusters } from './clusters.js'
import { ODD_KEYS } from './odd-keys.js'

// Where a chunked value's chunks live, checked with Redis's own answers (CLUSTER KEYSLOT, SCAN),
// on the test cluster and on the standalone server, for keys with braces in every position.
const url = inject('redisUrl')
let cluster: Cluster
let nodeCluster: ReturnType<typeof createCluster>
let raw: Redis
beforeAll(async () => {
  ;({ cluster, nodeCluster } = await connectClusters())
  raw = new Redis(url)
})
afterAll(async () => {
  await cluster.quit()
  await nodeCluster.close()
  await raw.quit()
})

const chunkSize = 1024
const value = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 31 + seed) & 0xff)
const unique = () => Math.random().toString(36).slice(2)

// Every key holding the generation of `key`'s manifest: its chunks, whatever they are named.
async function chunksOf(nodes: Redis[], key: string, manifestBytes: Buffer): Promise<string[]> {
  const { generation } = readManifest(new Uint8Array(manifestBytes))!
  const found: string[] = []
  for (const node of nodes) found.push(...(await node.keys(`*${generation}*`)))
  return found.sort()
}

describe('chunk keys on a real cluster', () => {
  for (const kind of ['ioredis Cluster', 'node-redis 5 createCluster'] as const) {
    it(`lie in their key's slot for braces in every position, and read back (${kind})`, async () => {
      const store = createRedisStore({ client: kind === 'ioredis Cluster' ? cluster : nodeCluster, chunkSize })
      const p = unique()
      const keys = ODD_KEYS.flatMap((odd) => [`${p}:${odd}`, `${odd}${p}`, `${odd}:${p}`])
      const masters = cluster.nodes('master')
      for (const [i, key] of keys.entries()) {
        const big = value(3000, i)
        await store.set(key, big)
        const chunks = await chunksOf(masters, key, (await cluster.getBuffer(key)) as Buffer)
        expect(chunks, key).toHaveLength(3)
        const slot = await cluster.cluster('KEYSLOT', key)
        for (const chunk of chunks) expect(await cluster.cluster('KEYSLOT', chunk), `${chunk} of ${key}`).toBe(slot)
        expect(await store.get(key), key).toStrictEqual(big)
      }
      expect(await store.deleteMany(keys)).toBe(keys.length)
    })
  }
})

describe('chunk keys and prefixes', () => {
  it('clearing a prefix never touches the chunks of a key outside it (clear("{a}") and key "a}b")', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const p = unique()
    const big = value(5000, 7)
    const key = `${p}a}b`
    await store.set(key, big)
    await store.clear(`{${p}a}`)
    await store.clear(`{${p}`)
    expect(await store.get(key)).toStrictEqual(big)
    expect(await store.delete(key)).toBe(true)
  })

  it('clearing or listing a prefix that reaches into a key’s chunk names leaves that key whole', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const p = unique()
    const key = `${p}:k`
    const big = value(5000, 9)
    await store.set(key, big)
    const chunks = await chunksOf([raw], key, (await raw.getBuffer(key)) as Buffer)
    expect(chunks).toHaveLength(5)
    // Every proper prefix of a chunk name that is not also a prefix of the key.
    const longer = [...new Set(chunks.flatMap((chunk) => Array.from({ length: chunk.length - key.length }, (_, n) => chunk.slice(0, key.length + n + 1))))]
    for (const prefix of longer) {
      const listed: string[] = []
      for await (const k of store.keys(prefix)) listed.push(k)
      expect(listed, prefix).toStrictEqual([])
      await store.clear(prefix)
    }
    expect(await store.get(key)).toStrictEqual(big)
    const listed: string[] = []
    for await (const k of store.keys(p)) listed.push(k)
    expect(listed).toStrictEqual([key])
    await store.clear(p)
    expect(await store.get(key)).toBeUndefined()
  })
})

// What @stowage/redis 0.3 stored (FORMAT.md §6 before this rule): the manifest under the key, chunk i
// under `{T}:chunk:G:i`, T the first non-empty {…} section of the key, or the key.
async function writeLegacy(client: Redis | Cluster, key: string, big: Uint8Array, ttl?: number): Promise<string[]> {
  const generation = '00112233445566' + Math.floor(Math.random() * 256).toString(16).padStart(2, '0')
  const open = key.indexOf('{')
  const close = open < 0 ? -1 : key.indexOf('}', open + 1)
  const tag = close > open + 1 ? key.slice(open + 1, close) : key
  const names = [0, 1, 2].map((i) => `{${tag}}:chunk:${generation}:${i}`)
  for (const [i, name] of names.entries()) {
    const part = Buffer.from(big.subarray(i * chunkSize, (i + 1) * chunkSize))
    if (ttl === undefined) await client.set(name, part)
    else await client.set(name, part, 'PX', ttl + 10_000)
  }
  const manifest = Buffer.from(writeManifest({ generation, count: 3, length: big.length, crc: checksum(big) }))
  if (ttl === undefined) await client.set(key, manifest)
  else await client.set(key, manifest, 'PX', ttl)
  return names
}

describe('chunked values written by @stowage/redis 0.3', () => {
  const expiring = (pttls: number[]) => pttls.every((t) => t === -2 || (t > 0 && t <= 30_000))

  it('read back, and their chunks expire when the value is replaced or deleted (standalone)', async () => {
    const store = createRedisStore({ client: raw, chunkSize })
    const p = unique()
    for (const [i, key] of [`${p}:plain`, `${p}:{tag}:x`, `${p}a}b`, `x{}{y}${p}`].entries()) {
      const big = value(2500, i)
      const names = await writeLegacy(raw, key, big)
      expect(await store.get(key), key).toStrictEqual(big)
      if (i % 2 === 0) await store.set(key, value(10, 1))
      else expect(await store.delete(key)).toBe(true)
      expect(expiring(await Promise.all(names.map((n) => raw.pttl(n)))), key).toBe(true)
      await store.delete(key)
    }
  })

  it('read back on a cluster, legacy chunks in another slot than their key or spread over slots included', async () => {
    const store = createRedisStore({ client: cluster, chunkSize })
    const p = unique()
    for (const [i, key] of [`${p}:plain`, `${p}a}b`, `}${p}`].entries()) {
      const big = value(2500, i)
      const names = await writeLegacy(cluster, key, big, 60_000)
      expect(await store.get(key), key).toStrictEqual(big)
      expect(await store.delete(key)).toBe(true)
      expect(expiring(await Promise.all(names.map((n) => cluster.pttl(n)))), key).toBe(true)
    }
  })
})
