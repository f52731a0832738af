// What began before a write, delete or clear never lands after it: reads that fill the local tier,
// getOrSet loaders and refreshes, acceptBytes (issue #20 items 4-6, issue #24 item 5).
import { describe, expect, it } from 'vitest'
import { createCache, createCodec, createMemoryStore, StowageErrorCode, type Cache, type GetOrSetOptions, type LoadLease, type Store, type StoreEntry } from '../src/index.js'
import { cuttableChannels, gate, heldStore, sleep, until } from './cache-helpers.js'

describe('Cache: a read in flight and a write', () => {
  // A cache whose get of `k` (holding 'old') is on the wire while `write` runs.
  async function writeDuringGet(write: (cache: Cache) => Promise<unknown>): Promise<Cache> {
    const { store, state, release, waiting } = heldStore()
    await createCache({ store, namespace: 'r', local: false }).set('k', 'old')
    const cache = createCache({ store, namespace: 'r' })
    state.held = true
    const inFlight = cache.get('k')
    await until(async () => waiting.length === 1)
    await write(cache)
    release()
    expect(await inFlight).toBe('old') // it asked before the write
    return cache
  }

  it('a get that began before a delete does not put the old value back in the local tier', async () => {
    const cache = await writeDuringGet((c) => c.delete('k'))
    expect(await cache.get('k')).toBeUndefined()
  })

  it('a get that began before a set does not replace the new value with the old one', async () => {
    const cache = await writeDuringGet((c) => c.set('k', 'new'))
    expect(await cache.get('k')).toBe('new')
  })

  it('across processes: a get in flight when another process’s set is announced keeps nothing old', async () => {
    const { store, state, release, waiting } = heldStore()
    const { channels } = cuttableChannels(2) // a channel like the BroadcastChannel one, that also runs where there is none (workerd)
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 'x', invalidation }))
    await a!.set('k', 'old')
    state.held = true
    const inFlight = b!.get('k')
    await until(async () => waiting.length === 1)
    state.held = false
    await a!.set('k', 'new')
    release()
    expect(await inFlight).toBe('old')
    expect(await b!.get('k')).toBe('new')
    await Promise.all([a!.close(), b!.close()])
  })
})

describe("Cache: another process's deleteByTag, or lost messages, and what is in flight here", () => {
  // A shared store (named as a remote one: local tiers on) whose reads of tag generations can be
  // held on the wire: answered as the store was when asked, delivered once released.
  function heldTagReads() {
    const inner = createMemoryStore()
    const state = { held: false }
    const waiting: Array<() => void> = []
    const store: Store = Object.assign(Object.create(inner) as Store, {
      name: 'held-tags',
      getMany: undefined,
      get: async (key: string) => {
        const answer = await inner.get(key)
        if (state.held && key.includes('#tag:')) await new Promise<void>((resolve) => waiting.push(resolve))
        return answer
      },
    })
    const release = () => {
      state.held = false
      for (const resolve of waiting.splice(0)) resolve()
    }
    return { store, state, waiting, release }
  }

  it("a get whose tag check is on the wire when another process's deleteByTag is announced does not keep the deleted entry", async () => {
    const { store, state, waiting, release } = heldTagReads()
    const { channels } = cuttableChannels(2)
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 't', invalidation }))
    await a!.set('k', 'old', { tags: ['T'] })
    state.held = true
    const inFlight = b!.get('k') // the entry read, then its tag's generation: answered before the deletion
    await until(async () => waiting.length === 1)
    state.held = false
    await a!.deleteByTag('T') // announced to b at once
    release()
    expect(await inFlight).toBe('old') // it asked before the deletion
    expect(await b!.get('k')).toBeUndefined()
    expect(await a!.get('k')).toBeUndefined()
  })

  it("this process's own deleteByTag while a tag check of its own is on the wire (another connection of the store): the old entry is not kept", async () => {
    const { store, state, waiting, release } = heldTagReads()
    await createCache({ store, namespace: 't', local: false }).set('k', 'old', { tags: ['T'] })
    const cache = createCache({ store, namespace: 't' })
    state.held = true
    const inFlight = cache.get('k')
    await until(async () => waiting.length === 1)
    state.held = false
    await cache.deleteByTag('T')
    release()
    expect(await inFlight).toBe('old')
    expect(await cache.get('k')).toBeUndefined()
  })

  it("a tagged set whose tag read is on the wire when another process's deleteByTag is announced: its local copy reads as the store does (gone)", async () => {
    const { store, state, waiting, release } = heldTagReads()
    const { channels } = cuttableChannels(2)
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 't', invalidation }))
    await a!.set('seed', 1, { tags: ['T'] }) // the tag has a generation
    state.held = true
    const writing = b!.set('k', 'mine', { tags: ['T'] }) // stamped with the generation it reads
    await until(async () => waiting.length === 1)
    state.held = false
    await a!.deleteByTag('T')
    release()
    await writing
    expect(await a!.get('k')).toBeUndefined() // stamped with the deleted generation
    expect(await b!.get('k')).toBeUndefined()
  })

  // A shared store without ensureMany (deleteByTag writes new generations) whose next write of
  // generations lands at once but answers only once released.
  function heldTagWrites() {
    const inner = createMemoryStore()
    const state = { hold: false }
    const held: Array<() => void> = []
    const store: Store = Object.assign(Object.create(inner) as Store, {
      name: 'held-tag-writes',
      getMany: undefined,
      setMany: async (entries: readonly StoreEntry[]) => {
        await inner.setMany(entries)
        if (state.hold && entries.some((e) => e.key.includes('#tag:'))) {
          state.hold = false
          await new Promise<void>((resolve) => held.push(resolve))
        }
      },
    })
    return { store, state, held, release: () => held.splice(0).forEach((resolve) => resolve()) }
  }

  it("another process's deleteByTag, done and announced while this one's answer is on the wire, is not undone by that answer", async () => {
    const { store, state, held, release } = heldTagWrites()
    const { channels } = cuttableChannels(2)
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 't', invalidation }))
    await a!.set('seed', 1, { tags: ['T'] })
    state.hold = true
    const deleting = a!.deleteByTag('T') // the new generation is in the store; the answer on the wire
    await until(async () => held.length === 1)
    await a!.set('k', 'written before b deleted T', { tags: ['T'] }) // stamped with it
    await b!.deleteByTag('T') // announced to a
    release()
    await deleting
    expect(await a!.get('k')).toBeUndefined()
    expect(await b!.get('k')).toBeUndefined()
  })

  it('two deleteByTag calls of one process whose answers come back in the other order: the later deletion stands', async () => {
    const { store, state, held, release } = heldTagWrites()
    const cache = createCache({ store, namespace: 't' })
    await cache.set('seed', 1, { tags: ['T'] })
    state.hold = true
    const first = cache.deleteByTag('T')
    await until(async () => held.length === 1)
    await cache.set('k', 'written before the second deletion', { tags: ['T'] })
    await cache.deleteByTag('T')
    release()
    await first
    expect(await cache.get('k')).toBeUndefined()
    expect(await createCache({ store, namespace: 't', local: false }).get('k')).toBeUndefined()
  })

  it("a getOrSet begun after another process's deleteByTag was heard does not join a load begun before it", async () => {
    const { store } = heldStore()
    const { channels } = cuttableChannels(2)
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 't', invalidation }))
    const slow = gate<string>()
    let started = false
    const first = b!.getOrSet('k', () => ((started = true), slow.promise), { tags: ['T'] })
    await until(async () => started)
    await a!.deleteByTag('T')
    const second = b!.getOrSet('k', async () => 'loaded after the deletion', { tags: ['T'] })
    slow.open('loaded before the deletion')
    expect(await first).toBe('loaded before the deletion')
    expect(await second).toBe('loaded after the deletion')
  })

  it('a getOrSet begun after the channel reported lost messages does not join a load begun before them', async () => {
    const { store } = heldStore()
    const { channels, state, mend } = cuttableChannels(2)
    const [a, b] = channels.map((invalidation) => createCache({ store, namespace: 'gap', invalidation }))
    const slow = gate<string>()
    let started = false
    const first = b!.getOrSet('k', () => ((started = true), slow.promise))
    await until(async () => started)
    state.cut = true
    await a!.set('k', 'new') // its message to b is lost…
    mend() // …and b is told that messages were lost
    const second = b!.getOrSet('k', async () => 'loaded after the gap')
    slow.open('loaded before the set')
    expect(await first).toBe('loaded before the set')
    expect(await second).toBe('new')
  })
})

describe('Cache: a refresh or a load in flight and a write', () => {
  const swr = { ttl: 30, staleFor: 60_000 }

  // A cache whose entry `k` is stale, with a refresh (its loader waiting on `slow`) under way.
  async function refreshing(options: GetOrSetOptions) {
    const cache = createCache()
    await cache.getOrSet('k', () => 'v1', options)
    await sleep(50) // stale
    const slow = gate<string>()
    expect(await cache.getOrSet('k', () => slow.promise, options)).toBe('v1') // the refresh starts
    const land = async () => {
      slow.open('refreshed before the write')
      await sleep(20)
    }
    return { cache, land }
  }

  it('set during a stale-while-revalidate refresh: getOrSet returns the new value, and the refresh never overwrites it', async () => {
    const { cache, land } = await refreshing(swr)
    await cache.set('k', 'mine')
    expect(await cache.getOrSet('k', () => 'unused', swr)).toBe('mine')
    await land()
    expect(await cache.get('k')).toBe('mine')
  })

  it('delete during a refresh: the refresh does not bring the key back', async () => {
    const { cache, land } = await refreshing(swr)
    await cache.delete('k')
    await land()
    expect(await cache.get('k')).toBeUndefined()
    expect(await cache.getOrSet('k', () => 'after the delete', swr)).toBe('after the delete')
  })

  it('deleteByTag during a refresh: getOrSet loads afresh instead of answering with the invalidated value', async () => {
    const tagged = { ...swr, tags: ['posts'] }
    const { cache, land } = await refreshing(tagged)
    await cache.deleteByTag('posts')
    expect(await cache.getOrSet('k', () => 'after the deletion', tagged)).toBe('after the deletion')
    await land()
    expect(await cache.get('k')).toBe('after the deletion')
  })

  it('a load that began before a set answers its own callers but does not overwrite the set', async () => {
    const cache = createCache()
    const slow = gate<string>()
    const loading = cache.getOrSet('k', () => slow.promise)
    await cache.set('k', 'mine')
    slow.open('loaded before the set')
    expect(await loading).toBe('loaded before the set')
    expect(await cache.get('k')).toBe('mine')
  })
})

describe('Cache: clear() while something is in flight (a sign-out)', () => {
  it('a getOrSet loader that began before clear() stores nothing, and callers after the clear do not join it', async () => {
    const cache = createCache({ namespace: 'app' })
    const userA = gate<{ user: string }>()
    const before = cache.getOrSet('me', () => userA.promise)
    await cache.clear()
    const after = cache.getOrSet('me', async () => ({ user: 'B' }))
    userA.open({ user: 'A' })
    expect(await before).toStrictEqual({ user: 'A' })
    expect(await after).toStrictEqual({ user: 'B' })
    expect(await cache.get('me')).toStrictEqual({ user: 'B' })
  })

  it('a parent namespace’s clear stops a child namespace’s load from landing', async () => {
    const cache = createCache({ namespace: 'app' })
    const child = cache.withNamespace('user')
    const userA = gate<string>()
    const loading = child.getOrSet('profile', () => userA.promise)
    await cache.clear()
    userA.open('A')
    await loading
    expect(await child.get('profile')).toBeUndefined()
  })

  it('an acceptBytes that began before clear() and resolves after it stores nothing', async () => {
    const migrating = gate()
    const { store, inner } = heldStore()
    const cache = createCache({
      store,
      namespace: 'client',
      version: 2,
      migrate: async (value) => {
        await migrating.promise
        return value
      },
    })
    const received = createCodec({ schemaVersion: 1 }).encode({ user: 'A' })
    const accepting = cache.acceptBytes('/api/me', received)
    await sleep(10)
    await cache.clear()
    migrating.open()
    expect(await accepting).toStrictEqual({ user: 'A' }) // the caller that asked before the sign-out
    expect(await inner.get('client:/api/me')).toBeUndefined()
    expect(await cache.get('/api/me')).toBeUndefined()
  })
})

describe('Cache: a sign-out while acceptBytes inflates what it will keep', () => {
  it('a clear() during the inflate of a deflated envelope (kept inflated) stores nothing', async () => {
    const { store, inner } = heldStore()
    // A browser's threshold: the deflated envelope is kept inflated, inflated before it is opened.
    const cache = createCache({ store, namespace: 'client', codec: { compressThreshold: 256 * 1024 } })
    const record = { user: 'A', notes: Array.from({ length: 100 }, (_, i) => `note ${i} of user A`) }
    const received = createCodec({ compressThreshold: 1024 }).encode(record)
    expect(received[2]).toBe(1) // deflated (byte 2: the compression id)
    const accepting = cache.acceptBytes('/api/me', received)
    await cache.clear() // acceptBytes is awaiting its inflate here
    expect(await accepting).toStrictEqual(record)
    expect(await inner.get('client:/api/me')).toBeUndefined()
    expect(await cache.get('/api/me')).toBeUndefined()
    // Without the sign-out, the same bytes are kept, inflated.
    await cache.acceptBytes('/api/me', received)
    expect((await inner.get('client:/api/me'))?.[2]).toBe(0)
  })
})

describe('Cache: claim(key) for bytes on their way', () => {
  it('bytes requested before clear() and accepted after it are not stored when the claim was taken at the request', async () => {
    const cache = createCache({ namespace: 'client' })
    const envelope = (user: string) => createCodec().encode({ user })
    const claim = cache.claim('/api/me') // the request goes out
    await cache.clear() // sign-out
    expect(claim.superseded).toBe(true)
    expect(await cache.acceptBytes('/api/me', envelope('A'), { claim })).toStrictEqual({ user: 'A' })
    expect(await cache.get('/api/me')).toBeUndefined()
    const next = cache.claim('/api/me') // nothing changes the key meanwhile: stored
    expect(await cache.acceptBytes('/api/me', envelope('B'), { claim: next })).toStrictEqual({ user: 'B' })
    expect(await cache.get('/api/me')).toStrictEqual({ user: 'B' })
    await expect(cache.acceptBytes('/other', envelope('C'), { claim: cache.claim('/api/me') })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    await expect(cache.acceptBytes('/other', envelope('C'), { claim: { key: '/other', superseded: false, end() {} } })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    expect(await cache.get('/other')).toBeUndefined()
  })
})

describe('Cache: a lease and a stale entry', () => {
  const free: LoadLease = { acquire: async () => async () => {} }

  it('stale-while-revalidate refreshes under a lease: the stale entry is not taken for another holder’s value', async () => {
    const cache = createCache({ lease: free })
    let version = 0
    const loader = () => `v${++version}`
    const options = { ttl: 30, staleFor: 60_000 }
    expect(await cache.getOrSet('k', loader, options)).toBe('v1')
    await sleep(50)
    expect(await cache.getOrSet('k', loader, options)).toBe('v1') // stale, one refresh starts
    await until(async () => version === 2)
    await until(async () => (await cache.getOrSet('k', loader, options)) === 'v2')
    await sleep(50)
    await cache.getOrSet('k', loader, options)
    await until(async () => version === 3)
  })

  it('grace under a lease: past ttl the loader runs and its value answers', async () => {
    const cache = createCache({ lease: free })
    const options = { ttl: 30, grace: 60_000 }
    expect(await cache.getOrSet('k', () => 'v1', options)).toBe('v1')
    await sleep(50)
    expect(await cache.getOrSet('k', () => 'v2', options)).toBe('v2')
  })

  it('a fresh value another holder stored while this process waited for the lease is taken as it is', async () => {
    const holder = gate()
    let acquired = 0
    const lease: LoadLease = {
      acquire: async () => {
        if (acquired++ === 0) return undefined // someone else holds it first
        await holder.promise
        return async () => {}
      },
    }
    const store = heldStore()
    const other = createCache({ store: store.store, namespace: 'n', local: false })
    const cache = createCache({ store: store.store, namespace: 'n', lease, local: false })
    let loads = 0
    const waiting = cache.getOrSet('k', () => `mine ${++loads}`, { ttl: 10_000 })
    await other.set('k', 'from the holder', { ttl: 10_000 })
    holder.open()
    expect(await waiting).toBe('from the holder')
    expect(loads).toBe(0)
  })
})
