// Claims decide whether what a read or load found may still be stored: a change of the key that
// starts while the claim is open must take that right away, and nothing else may.
import { describe, expect, it } from 'vitest'
import { Claims } from '../src/cache/claims.js'
import { createCache, createCodec, createMemoryStore, StowageErrorCode, type StowageError, type Store } from '../src/index.js'
import { heldStore, until } from './cache-helpers.js'

// How many keys the book holds records for (only keys with open claims should be there).
const keysHeld = (claims: Claims) => (claims as unknown as { open: Map<string, unknown> }).open.size

describe('Claims', () => {
  it('supersedes every open claim on a key that changes, and no claim on another key', () => {
    const claims = new Claims()
    const a1 = claims.begin('ns:a')
    const a2 = claims.begin('ns:a')
    const b = claims.begin('ns:b')
    claims.supersede('ns:a')
    expect([a1.superseded, a2.superseded, b.superseded]).toStrictEqual([true, true, false])
    expect(claims.end(a1)).toBe(false)
    expect(claims.end(b)).toBe(true)
  })

  it('gives a claim begun after a change its own right, which a stale claim ending cannot take away', () => {
    const claims = new Claims()
    const old = claims.begin('ns:a')
    claims.supersede('ns:a')
    const fresh = claims.begin('ns:a')
    expect(fresh.superseded).toBe(false)
    expect(claims.end(old)).toBe(false)
    // The old claim's end must not forget the fresh one: the next change still reaches it.
    claims.supersede('ns:a')
    expect(fresh.superseded).toBe(true)
    expect(claims.end(fresh)).toBe(false)
  })

  it('ignores a second end of the same claim, which must not close another claim on the key', () => {
    const claims = new Claims()
    const first = claims.begin('ns:a')
    const second = claims.begin('ns:a')
    expect(claims.end(first)).toBe(true)
    expect(claims.end(first)).toBe(true)
    claims.supersede('ns:a')
    expect(second.superseded).toBe(true)
  })

  it('supersedes the claims under a prefix on a clear, and keeps only keys with open claims', () => {
    const claims = new Claims()
    const inside = [claims.begin('ns:user-1:a'), claims.begin('ns:user-1:b')]
    const outside = claims.begin('ns:user-2:a')
    claims.supersedeAll('ns:user-1:')
    expect(inside.map((c) => c.superseded)).toStrictEqual([true, true])
    expect(outside.superseded).toBe(false)
    for (const claim of [...inside, outside]) claims.end(claim)
    expect(keysHeld(claims)).toBe(0)
    for (let i = 0; i < 100; i++) claims.end(claims.begin(`ns:k${i}`))
    expect(keysHeld(claims)).toBe(0)
  })
})

// From a review of the counted book (2026-11-28): each of these failed on its first version.
describe('Claims, after a claim ends', () => {
  it('a change after a claim ended does not supersede it, whether or not another claim on the key is open', () => {
    const claims = new Claims()
    const alone = claims.begin('ns:a')
    expect(claims.end(alone)).toBe(true)
    claims.supersede('ns:a')
    expect(alone.superseded).toBe(false)
    const ended = claims.begin('ns:b')
    const other = claims.begin('ns:b')
    expect(claims.end(ended)).toBe(true)
    claims.supersede('ns:b')
    expect(other.superseded).toBe(true)
    expect(ended.superseded).toBe(false)
    expect(claims.end(ended)).toBe(true)
  })

  it('a claim of another book ending here changes nothing in this book', () => {
    const mine = new Claims()
    const theirs = new Claims()
    const open = mine.begin('ns:a')
    const foreign = theirs.begin('ns:a')
    mine.end(foreign)
    mine.supersede('ns:a')
    expect(open.superseded).toBe(true)
  })
})

describe('Cache: claim(key) handles', () => {
  it('an ended handle is not superseded by a later write, whether or not another handle on the key is open', async () => {
    const cache = createCache()
    const alone = cache.claim('k')
    alone.end()
    await cache.set('k', 1)
    expect(alone.superseded).toBe(false)
    const ended = cache.claim('k')
    const other = cache.claim('k')
    ended.end()
    await cache.set('k', 2)
    expect(other.superseded).toBe(true)
    expect(ended.superseded).toBe(false)
    other.end()
  })

  it("refuses another cache's handle in acceptBytes, and this cache's read in flight then puts nothing stale back", async () => {
    const { store, state, release, waiting } = heldStore()
    await createCache({ store, namespace: 'r', local: false }).set('k', 'old')
    const a = createCache({ store, namespace: 'r' })
    const b = createCache({ store, namespace: 'r' })
    state.held = true
    const inFlight = b.get('k') // b's read of 'old' is on the wire
    await until(async () => waiting.length === 1)
    const foreign = a.claim('k') // the same store key, but not a handle b gave out
    const refused = await b.acceptBytes('k', createCodec().encode('new'), { claim: foreign }).catch((e: StowageError) => e)
    expect((refused as StowageError).code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    // With b's own handle the write lands, and supersedes the read still in flight.
    expect(await b.acceptBytes('k', createCodec().encode('new'), { claim: b.claim('k') })).toBe('new')
    release()
    expect(await inFlight).toBe('old') // it asked before the write
    expect(await b.get('k')).toBe('new')
    foreign.end()
  })

  it('never lets the drop of a corrupt entry delete a value written just after the read', async () => {
    // A read gets the damaged bytes, then a write of the key lands a few microtasks after its
    // answer: the drop, sent while the read's claim is open, must come before that write.
    const lost: number[] = []
    for (let depth = 0; depth < 40; depth++) {
      const inner = createMemoryStore()
      let answer: (() => void) | undefined
      const store: Store = {
        name: 'held',
        get: async (key) => {
          const bytes = await inner.get(key)
          await new Promise<void>((resolve) => (answer = resolve))
          return bytes
        },
        set: (key, value, options) => inner.set(key, value, options),
        delete: (key) => inner.delete(key),
        clear: (prefix) => inner.clear!(prefix),
      }
      const cache = createCache({ store, namespace: 'n', local: false })
      const codec = createCodec()
      const bad = codec.encode({ a: 1 }).slice()
      bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 0xff
      await inner.set('n:k', bad)
      const reading = cache.get('k')
      while (answer === undefined) await new Promise((resolve) => setTimeout(resolve, 0))
      let hops = Promise.resolve()
      for (let i = 0; i < depth; i++) hops = hops.then(() => {})
      const writing = hops.then(() => cache.setBytes('k', codec.encode('new')))
      answer()
      expect(await reading).toBeUndefined()
      await writing
      await new Promise((resolve) => setTimeout(resolve, 5))
      if ((await inner.get('n:k')) === undefined) lost.push(depth)
    }
    expect(lost).toStrictEqual([])
  })
})
