// serveCached serves an entry by the Cache's rules: a deleted tag's entry is gone, and a stale one is
// served within staleFor while one refresh runs (issue #20 item 3).
import { createCache, createCodec } from '@stowage/core'
import { afterEach, describe, expect, it } from 'vitest'
import { serveCached, STOWAGE_MEDIA_TYPE } from '../src/index.js'
import { nodeHttp, type Running } from './servers.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const get = (accept = STOWAGE_MEDIA_TYPE) => new Request('http://localhost/entries/k', { headers: { Accept: accept } })
const decoded = async (response: Response) => createCodec().decode(new Uint8Array(await response.arrayBuffer()))

let running: Running | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

describe('serveCached and the Cache’s rules', () => {
  it('never serves an entry deleteByTag invalidated: 404 without a loader, loaded again with one (envelope and JSON)', async () => {
    const cache = createCache({ namespace: 'server' })
    await cache.set('k', { title: 'old' }, { tags: ['posts'] })
    expect((await serveCached(get(), { cache, key: 'k' })).status).toBe(200)
    await cache.deleteByTag('posts')
    expect((await serveCached(get(), { cache, key: 'k' })).status).toBe(404)
    expect((await serveCached(get('application/json'), { cache, key: 'k' })).status).toBe(404)
    const loads: string[] = []
    const response = await serveCached(get(), { cache, key: 'k', load: () => (loads.push('k'), { title: 'new' }) })
    expect([response.status, await decoded(response)]).toStrictEqual([200, { title: 'new' }])
    expect(loads).toStrictEqual(['k'])
  })

  it('the same through a real server', async () => {
    const cache = createCache({ namespace: 'server' })
    let version = 0
    running = await nodeHttp(cache, () => ({ version: ++version }))
    await cache.set('post', { version: 0 }, { tags: ['posts'] })
    expect(await decoded(await fetch(`${running.url}/entries/post`))).toStrictEqual({ version: 0 })
    await cache.deleteByTag('posts')
    expect(await decoded(await fetch(`${running.url}/entries/post`))).toStrictEqual({ version: 1 })
  })

  it('stale-while-revalidate: a stale entry is served at once while one refresh runs; then the refreshed one', async () => {
    const cache = createCache({ namespace: 'server' })
    let version = 0
    let refreshed!: () => void
    const refreshing = new Promise<void>((resolve) => (refreshed = resolve))
    const load = async () => {
      const loaded = { version: ++version }
      if (loaded.version > 1) await refreshing
      return loaded
    }
    const options = { cache, key: 'k', load, ttl: 30, staleFor: 60_000 }
    expect(await decoded(await serveCached(get(), options))).toStrictEqual({ version: 1 })
    await sleep(50) // stale
    for (let i = 0; i < 5; i++) expect(await decoded(await serveCached(get(), options))).toStrictEqual({ version: 1 })
    expect(version).toBe(2) // one refresh for the five
    refreshed()
    await sleep(20)
    expect(await decoded(await serveCached(get(), options))).toStrictEqual({ version: 2 })
  })

  it('past ttl and staleFor, an entry in grace is loaded again before it is served', async () => {
    const cache = createCache({ namespace: 'server' })
    let version = 0
    const options = { cache, key: 'k', load: () => ({ version: ++version }), ttl: 30, grace: 60_000 }
    expect(await decoded(await serveCached(get(), options))).toStrictEqual({ version: 1 })
    await sleep(50)
    expect(await decoded(await serveCached(get(), options))).toStrictEqual({ version: 2 })
  })
})
