// signOut in one process: two "tabs" (two caches over one store, each with its in-process tier,
// joined by a BroadcastChannel); the real two-tab test in Chromium is @stowage/idb's.
import { createBroadcastInvalidation, createCache, createCodec, createMemoryStore, StowageErrorCode } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { fetchCachedWithInfo, scopedCache, signOut } from '../src/index.js'

describe('signOut', () => {
  it("wipes one user's scope from the store and from every tab's in-process tier, and their persisted state; other users and unscoped entries stay", async () => {
    const store = createMemoryStore()
    const channel = `sign-out-${Math.random()}`
    const tab = () => createCache({ store, namespace: 'app', local: { ttl: 60_000 }, invalidation: createBroadcastInvalidation(channel) })
    const [one, two] = [tab(), tab()]
    await scopedCache(one, 'a').set('/api/me', { id: 'a' })
    await scopedCache(one, 'b').set('/api/me', { id: 'b' })
    await one.set('/api/countries', ['fr'])
    // Tab two reads a's entry into its in-process tier.
    expect(await scopedCache(two, 'a').get('/api/me')).toStrictEqual({ id: 'a' })
    const removed: string[] = []
    await signOut({ cache: one, scope: 'a', persisted: [{ removeClient: () => void removed.push('tanstack') }, () => void removed.push('zustand')] })
    expect(removed).toStrictEqual(['tanstack', 'zustand'])
    expect(await scopedCache(one, 'a').getBytes('/api/me')).toBeUndefined()
    await expect.poll(() => scopedCache(two, 'a').get('/api/me'), { timeout: 2000 }).toBeUndefined()
    expect(await scopedCache(two, 'b').get('/api/me')).toStrictEqual({ id: 'b' })
    expect(await two.get('/api/countries')).toStrictEqual(['fr'])
    await Promise.all([one.close(), two.close()])
  })

  it('removes the persisted state all at once (persisters of one page take each other\'s notices during their own removal), after the cache', async () => {
    const cache = createCache()
    const events: string[] = []
    const persisted = ['a', 'b'].map((name) => async () => {
      events.push(`${name} begins`)
      await new Promise((r) => setTimeout(r, 20))
      events.push(`${name} ends`)
    })
    await signOut({ cache, persisted })
    expect(events).toStrictEqual(['a begins', 'b begins', 'a ends', 'b ends'])
  })

  it('tries every step and then reports the first failure as STORE_ERROR', async () => {
    const cache = createCache({ namespace: 'app' })
    await cache.set('k', 1)
    const removed: string[] = []
    const error = await signOut({ cache, persisted: [() => Promise.reject(new Error('quota')), () => void removed.push('second')] }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: StowageErrorCode.STORE_ERROR, cause: { message: 'quota' } })
    expect(removed).toStrictEqual(['second'])
    expect(await cache.get('k')).toBeUndefined()
    await expect(signOut({ cache, scope: 'not a scope' })).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
  })

  it('a request sent before the sign-out and answered after it stores nothing', async () => {
    const cache = createCache({ namespace: 'app' })
    let answer: (response: Response) => void = () => {}
    const fetch = () => new Promise<Response>((resolve) => (answer = resolve))
    const pending = fetchCachedWithInfo('https://app.example/api/me', { cache, scope: 'a', fetch })
    await new Promise((r) => setTimeout(r, 10)) // the request is out
    await signOut({ cache, scope: 'a' })
    answer(new Response(createCodec().encode({ id: 'a' }) as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': 'application/vnd.stowage', 'Cache-Control': 'private, max-age=0' } }))
    const result = await pending
    expect(result.value).toStrictEqual({ id: 'a' }) // the caller that asked still gets its answer
    expect(result.kept).toBe(false)
    expect(await scopedCache(cache, 'a').getBytes('https://app.example/api/me')).toBeUndefined()
  })
})

it('persisted given as another iterable (a Set, from JavaScript): every removal runs', async () => {
  const removed: string[] = []
  const persisted = new Set([() => void removed.push('a'), () => void removed.push('b')])
  await signOut({ cache: createCache(), persisted: persisted as never, validatorHints: false })
  expect(removed).toStrictEqual(['a', 'b'])
})
