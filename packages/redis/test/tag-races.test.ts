// Two Cache instances over one real Redis ("two processes"), around deleteByTag: what one has in
// flight when the other's deletion is announced never outlives it (found by a hunt for wrong data;
// packages/core/test/cache-races.test.ts has the same races over a memory store). Deterministic: a store whose getMany reply can be held (a reply still on the wire), a gated
// loader, and a channel wrapper that tells when the other process has heard a message.
import { createCache, createCodec, decodeInvalidation, INVALIDATION_CODEC_OPTIONS, type InvalidationChannel, type Store } from '@stowage/core'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createRedisInvalidation, createRedisStore } from '../src/index.js'

const url = inject('redisUrl')
let clients: Redis[]
beforeAll(() => {
  clients = [new Redis(url), new Redis(url)]
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()))
})

async function until(check: () => boolean | Promise<boolean>, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 5))
  }
}

function gate<T = void>() {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => (open = resolve))
  return { promise, open }
}

const messages = createCodec(INVALIDATION_CODEC_OPTIONS)

// A channel that records the ops it delivered to this process's cache (after the cache handled them).
function heard(channel: InvalidationChannel) {
  const ops: string[] = []
  const wrapped: InvalidationChannel = {
    publish: (m) => channel.publish(m),
    subscribe: (listener, onGap) =>
      channel.subscribe((m) => {
        listener(m)
        ops.push(decodeInvalidation(messages, m)?.op ?? '?')
      }, onGap),
    close: () => channel.close!(),
  }
  return { channel: wrapped, ops }
}

// The real Redis store, whose getMany replies (tag generations are read with it) can be held:
// the answer is what Redis said when asked, delivered only once released.
function heldGetMany(real: Store) {
  const state = { held: false }
  const waiting: Array<() => void> = []
  const store = Object.create(real) as Store
  store.getMany = async (keys) => {
    const answer = await real.getMany!(keys)
    if (state.held) await new Promise<void>((resolve) => waiting.push(resolve))
    return answer
  }
  const release = () => {
    state.held = false
    for (const resolve of waiting.splice(0)) resolve()
  }
  return { store, state, waiting, release }
}

async function twoProcesses() {
  const namespace = `tag-races-${Math.random().toString(36).slice(2)}`
  const channelName = `stowage-tag-races:${namespace}`
  const raw = await Promise.all(clients.map((client) => createRedisInvalidation({ client, channel: channelName })))
  const heardA = heard(raw[0]!)
  const heardB = heard(raw[1]!)
  const held = heldGetMany(createRedisStore({ client: clients[1]! }))
  const a = createCache({ store: createRedisStore({ client: clients[0]! }), namespace, local: { ttl: 60_000 }, invalidation: heardA.channel })
  const b = createCache({ store: held.store, namespace, local: { ttl: 60_000 }, invalidation: heardB.channel })
  const close = async () => {
    await a.clear()
    await Promise.all([a.close(), b.close(), ...raw.map((c) => c.close())])
  }
  return { a, b, heardB, held, close }
}

describe('deleteByTag across processes, over Redis', () => {
  it('a read in flight in B when A deletes the tag does not keep the old value in B’s local tier', async () => {
    const { a, b, heardB, held, close } = await twoProcesses()
    try {
      await a.set('k', 'old', { tags: ['T'] })
      await until(() => heardB.ops.includes('set'))
      held.state.held = true
      const first = b.get('k') // reads the entry, then the tag's generation: Redis answers G1, the reply is on the wire
      await until(() => held.waiting.length === 1)
      held.state.held = false
      await a.deleteByTag('T') // completes in A
      await until(() => heardB.ops.includes('tag')) // and B has heard of it
      expect(await a.get('k')).toBeUndefined()
      held.release()
      expect(await first).toBe('old') // it began before the deleteByTag: fine
      // A read B begins after the deleteByTag completed and after B heard of it:
      expect(await b.get('k')).toBeUndefined()
    } finally {
      await close()
    }
  })

  it('control: the same read in flight when A deletes the key (not the tag) keeps nothing', async () => {
    const { a, b, heardB, held, close } = await twoProcesses()
    try {
      await a.set('k', 'old', { tags: ['T'] })
      await until(() => heardB.ops.includes('set'))
      held.state.held = true
      const first = b.get('k')
      await until(() => held.waiting.length === 1)
      held.state.held = false
      await a.delete('k')
      await until(() => heardB.ops.includes('delete'))
      held.release()
      expect(await first).toBe('old')
      expect(await b.get('k')).toBeUndefined() // claims are superseded by the key's message
    } finally {
      await close()
    }
  })

  it('a getOrSet in B that starts after A’s deleteByTag was heard does not join a load that began before it', async () => {
    const { a, b, heardB, close } = await twoProcesses()
    try {
      const slow = gate<string>()
      let started = false
      const first = b.getOrSet('k', () => ((started = true), slow.promise), { tags: ['T'] })
      await until(() => started) // B's loader runs (it read the tag's generation before)
      await a.deleteByTag('T')
      await until(() => heardB.ops.includes('tag'))
      const second = b.getOrSet('k', async () => 'loaded after the deleteByTag', { tags: ['T'] })
      slow.open('loaded before the deleteByTag')
      expect(await first).toBe('loaded before the deleteByTag')
      expect(await second).toBe('loaded after the deleteByTag')
    } finally {
      await close()
    }
  })

  it('control: in one process, deleteByTag makes later callers load afresh', async () => {
    const { b, close } = await twoProcesses()
    try {
      const slow = gate<string>()
      let started = false
      const first = b.getOrSet('k', () => ((started = true), slow.promise), { tags: ['T'] })
      await until(() => started)
      await b.deleteByTag('T')
      const second = b.getOrSet('k', async () => 'loaded after the deleteByTag', { tags: ['T'] })
      slow.open('loaded before the deleteByTag')
      expect(await first).toBe('loaded before the deleteByTag')
      expect(await second).toBe('loaded after the deleteByTag')
    } finally {
      await close()
    }
  })
})
