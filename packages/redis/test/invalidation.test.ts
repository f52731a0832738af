import { createCache, StowageErrorCode } from '@stowage/core'
import { Redis } from 'ioredis'
import { createClient } from 'redis'
import { createClient as createClient6 } from 'redis6'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createRedisInvalidation, createRedisStore, invalidationChannelFor } from '../src/index.js'

// Two "processes": each with its own connection, local memory tier and subscription.
const url = inject('redisUrl')
let clients: Redis[]
beforeAll(() => {
  clients = [new Redis(url), new Redis(url)]
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()))
})

async function until(check: () => Promise<boolean>, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for invalidation')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('invalidation over Redis pub/sub', () => {
  it('a set, delete or clear in one process drops the local copies of another', async () => {
    const channel = `stowage-test:${Math.random()}`
    const namespace = `inv-${Math.random().toString(36).slice(2)}`
    const channels = await Promise.all(clients.map((client) => createRedisInvalidation({ client, channel })))
    const [a, b] = clients.map((client, i) =>
      createCache({ store: createRedisStore({ client }), local: { ttl: 60_000 }, invalidation: channels[i], namespace }),
    )
    await a!.set('k', 'v1')
    await a!.set('other', 'o')
    expect(await b!.get('k')).toBe('v1') // now in b's local tier
    expect(await b!.get('other')).toBe('o')
    await a!.set('k', 'v2')
    await until(async () => (await b!.get('k')) === 'v2')
    await a!.delete('k')
    await until(async () => (await b!.get('k')) === undefined)
    await a!.clear()
    await until(async () => (await b!.get('other')) === undefined)
    await Promise.all(channels.map((c) => c.close()))
  })

  // b and its subscriber (a duplicate: same options) wait 300 ms before reconnecting.
  const slowClients = {
    ioredis: async (name: string) => {
      const client = new Redis(url, { connectionName: name, retryStrategy: () => 300 })
      return { client, quit: () => client.quit() }
    },
    'node-redis 5': async (name: string) => {
      const client = createClient({ url, name, socket: { reconnectStrategy: () => 300 } })
      client.on('error', () => {})
      await client.connect()
      return { client, quit: () => client.close() }
    },
    'node-redis 6, RESP3': async (name: string) => {
      const client = createClient6({ url, name, socket: { reconnectStrategy: () => 300 } })
      client.on('error', () => {})
      await client.connect()
      return { client, quit: () => client.close() }
    },
  }
  for (const [kind, connect] of Object.entries(slowClients)) {
    it(`tags (${kind}): a subscriber cut off while a tag was deleted drops its local copies once back; store reads see it at once`, async () => {
      const channel = `stowage-test:${Math.random()}`
      const namespace = `tag-${Math.random().toString(36).slice(2)}`
      const name = `stowage-test-${Math.random().toString(36).slice(2)}`
      const slow = await connect(name)
      const channelA = await createRedisInvalidation({ client: clients[0], channel })
      const channelB = await createRedisInvalidation({ client: slow.client, channel })
      const a = createCache({ store: createRedisStore({ client: clients[0] }), local: { ttl: 60_000 }, invalidation: channelA, namespace })
      const b = createCache({ store: createRedisStore({ client: slow.client }), local: { ttl: 60_000 }, invalidation: channelB, namespace })
      const elsewhere = createCache({ store: createRedisStore({ client: clients[1] }), local: false, namespace })
      await a.set('k', 'v', { tags: ['t'] })
      expect(await b.get('k')).toBe('v')
      expect(await elsewhere.get('k')).toBe('v')
      // Cut b's subscriber connection (and only it), then delete the tag while it is away.
      const list = String(await clients[1]!.client('LIST'))
      const ids = list.split('\n').filter((line) => line.includes(` name=${name} `) && / sub=[1-9]/.test(line)).map((line) => /^id=(\d+)/.exec(line)![1]!)
      expect(ids).toHaveLength(1)
      await clients[1]!.client('KILL', 'ID', ids[0]!)
      await a.deleteByTag('t')
      expect(await elsewhere.get('k')).toBeUndefined() // read from the store: the tag's generation moved
      await until(async () => (await b.get('k')) === undefined) // b never heard it, but knows it missed something
      await Promise.all([channelA.close(), channelB.close()])
      await slow.quit()
    })
  }

  it('with namespace, the channel is named after it: caches of other namespaces on the same Redis hear nothing', async () => {
    const ours = `ns-${Math.random().toString(36).slice(2)}`
    const theirs = `ns-${Math.random().toString(36).slice(2)}`
    const [a, b, other] = await Promise.all([
      createRedisInvalidation({ client: clients[0], namespace: ours }),
      createRedisInvalidation({ client: clients[1], namespace: ours }),
      createRedisInvalidation({ client: clients[1], namespace: theirs }),
    ])
    const heard: number[][] = []
    const heardElsewhere: number[][] = []
    b.subscribe((m) => heard.push([...m]))
    other.subscribe((m) => heardElsewhere.push([...m]))
    // A plain subscriber on the documented name hears it too.
    const plain = clients[0]!.duplicate()
    const heardPlain: string[] = []
    plain.on('messageBuffer', (from: Buffer) => heardPlain.push(from.toString()))
    await plain.subscribe(invalidationChannelFor(ours))
    await a.publish(new Uint8Array([0xc1, 7]))
    await until(async () => heard.length === 1 && heardPlain.length === 1)
    await new Promise((r) => setTimeout(r, 50))
    expect([heard, heardPlain, heardElsewhere]).toStrictEqual([[[0xc1, 7]], [`stowage:invalidate:${ours}`], []])
    await expect(createRedisInvalidation({ client: clients[0], namespace: '' })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    await Promise.all([a.close(), b.close(), other.close(), plain.quit()])
  })

  it('works with node-redis clients too, and speaks the same bytes', async () => {
    const channel = `stowage-test:${Math.random()}`
    const nodeClient = createClient({ url })
    await nodeClient.connect()
    const fromNode = await createRedisInvalidation({ client: nodeClient, channel })
    const fromIoredis = await createRedisInvalidation({ client: clients[0], channel })
    const heard: Uint8Array[] = []
    fromIoredis.subscribe((m) => heard.push(m))
    await fromNode.publish(new Uint8Array([0xc1, 1, 2, 3]))
    await until(async () => heard.length === 1)
    expect([...heard[0]!]).toStrictEqual([0xc1, 1, 2, 3])
    await fromNode.close()
    await fromIoredis.close()
    await nodeClient.close()
  })
})
