// The `cacheHandler` at the handler level, as two Next.js instances would use it: two handler
// classes made from two options objects (two caches, as in two processes) over one real Redis.
import { Buffer } from 'node:buffer'
import { randomBytes } from 'node:crypto'
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { startRedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createCacheHandler, type NextCacheOptions, type StowageCacheHandler } from '../src/index.js'

let raw: Redis
let store: RedisStore
beforeAll(() => {
  raw = new Redis(inject('redisUrl'))
  store = createRedisStore({ client: raw })
})
afterAll(async () => {
  await store.clear('next-test-')
  await raw.quit()
})

// Two instances of one app: same store and namespace, each its own options object (its own cache).
function twoInstances(extra: Partial<NextCacheOptions> = {}): [StowageCacheHandler, StowageCacheHandler, string] {
  const namespace = `next-test-${Math.random().toString(36).slice(2)}`
  const A = createCacheHandler({ store, namespace, ...extra })
  const B = createCacheHandler({ store, namespace, ...extra })
  return [new A({ revalidatedTags: [] }), new B({ revalidatedTags: [] }), namespace]
}

// Bytes that do not deflate, so they are in the envelope as they are (the same bytes per length).
const noises = new Map<number, Buffer>()
const noise = (n: number) => {
  if (!noises.has(n)) noises.set(n, randomBytes(n))
  return noises.get(n) as Buffer
}

const appPage = (tags: string) => ({
  kind: 'APP_PAGE',
  html: '<html><body>product</body></html>',
  rscData: noise(2048),
  segmentData: new Map([
    ['/_tree', noise(300)],
    ['/_full', Buffer.from('segment')],
  ]),
  postponed: undefined,
  status: 200,
  headers: { 'x-next-cache-tags': tags, 'content-type': 'text/html' },
})

describe('cacheHandler', () => {
  it('serves a page one instance cached on the other: binary parts as Buffers, its cacheControl and lastModified kept', async () => {
    const [a, b] = twoInstances()
    const cacheControl = { revalidate: 60, expire: 3600 }
    await a.set('/product/1', appPage('_N_T_/layout,_N_T_/product/1,product'), { cacheControl, isRoutePPREnabled: false, isFallback: false })
    const hit = await b.get('/product/1', { kind: 'APP_PAGE', isFallback: false })
    expect(hit).not.toBeNull()
    expect(hit!.cacheControl).toEqual(cacheControl)
    expect(hit!.lastModified).toBeGreaterThan(Date.now() - 5_000)
    const value = hit!.value as ReturnType<typeof appPage>
    expect(value.html).toBe('<html><body>product</body></html>')
    expect(Buffer.isBuffer(value.rscData)).toBe(true)
    expect(value.rscData.equals(noise(2048))).toBe(true)
    expect(Buffer.isBuffer(value.segmentData.get('/_tree'))).toBe(true)
    expect(value.segmentData.get('/_full')!.toString()).toBe('segment')
    expect(value.headers).toEqual({ 'x-next-cache-tags': '_N_T_/layout,_N_T_/product/1,product', 'content-type': 'text/html' })
  })

  it('keeps the RSC payload as raw bytes inside one envelope, never as base64, with a TTL of the entry’s expire', async () => {
    const [a, , namespace] = twoInstances()
    await a.set('/raw', appPage('raw'), { cacheControl: { revalidate: 60, expire: 600 } })
    const keys = (await raw.keys(`${namespace}:*`)).filter((k) => !k.includes('#tag:'))
    expect(keys).toHaveLength(1)
    const stored = (await raw.getBuffer(keys[0]!)) as Buffer
    expect(stored[0]).toBe(0xc1)
    expect(stored.includes(noise(2048))).toBe(true)
    expect(stored.includes(Buffer.from(noise(2048).toString('base64').slice(0, 64)))).toBe(false)
    const ttl = await raw.pttl(keys[0]!)
    expect(ttl).toBeGreaterThan(590_000)
    expect(ttl).toBeLessThanOrEqual(600_000)
  })

  it('revalidateTag on one instance is seen by the other on its next read: pages by their tags header, implicit tags too', async () => {
    const [a, b] = twoInstances()
    await a.set('/p/1', appPage('_N_T_/layout,_N_T_/p/1,products'), { cacheControl: { revalidate: false, expire: undefined } })
    await a.set('/p/2', appPage('_N_T_/layout,_N_T_/p/2,other'), { cacheControl: { revalidate: false, expire: undefined } })
    expect(await b.get('/p/1', { kind: 'APP_PAGE' })).not.toBeNull()
    await a.revalidateTag('products')
    expect(await b.get('/p/1', { kind: 'APP_PAGE' })).toBeNull()
    expect(await b.get('/p/2', { kind: 'APP_PAGE' })).not.toBeNull()
    // revalidatePath('/p/2') is revalidateTag of its implicit tag.
    await b.revalidateTag(['_N_T_/p/2'])
    expect(await a.get('/p/2', { kind: 'APP_PAGE' })).toBeNull()
  })

  it('keeps fetch-cache entries; a revalidated fetch tag or soft tag (the page’s implicit tag) makes them misses', async () => {
    const [a, b] = twoInstances()
    const fetched = { kind: 'FETCH', data: { headers: { 'content-type': 'application/json' }, body: '{"price":10}', url: 'https://api/price', status: 200 }, tags: ['price'], revalidate: 30 }
    await a.set('fetch-1', fetched, { fetchCache: true, tags: ['price'], fetchUrl: 'https://api/price', fetchIdx: 0 })
    const softTags = ['_N_T_/layout', '_N_T_/shop']
    const hit = await b.get('fetch-1', { kind: 'FETCH', tags: ['price'], softTags })
    expect(hit?.value).toEqual(fetched)
    expect(hit?.cacheControl).toBeUndefined()
    await a.revalidateTag('_N_T_/shop')
    expect(await b.get('fetch-1', { kind: 'FETCH', tags: ['price'], softTags })).toBeNull()
    // Written again after the revalidation, it is served again.
    await a.set('fetch-1', fetched, { fetchCache: true, tags: ['price'] })
    await new Promise((resolve) => setTimeout(resolve, 2))
    expect(await b.get('fetch-1', { kind: 'FETCH', tags: ['price'], softTags })).not.toBeNull()
    await b.revalidateTag('price')
    expect(await a.get('fetch-1', { kind: 'FETCH', tags: ['price'], softTags })).toBeNull()
  })

  it('round-trips a route handler body as a Buffer, and deletes an entry set to null', async () => {
    const [a, b] = twoInstances()
    const route = { kind: 'APP_ROUTE', body: noise(500), status: 201, headers: { 'x-next-cache-tags': 'api', 'content-type': 'application/octet-stream' } }
    await a.set('/api/blob', route, { cacheControl: { revalidate: 10, expire: 100 } })
    const hit = await b.get('/api/blob', { kind: 'APP_ROUTE' })
    expect(Buffer.isBuffer((hit!.value as typeof route).body)).toBe(true)
    expect((hit!.value as typeof route).body.equals(noise(500))).toBe(true)
    expect((hit!.value as typeof route).status).toBe(201)
    await a.set('/api/blob', null)
    expect(await b.get('/api/blob', { kind: 'APP_ROUTE' })).toBeNull()
  })

  it('treats tags this request already revalidated (Next’s minimal mode) as misses', async () => {
    const namespace = `next-test-${Math.random().toString(36).slice(2)}`
    const H = createCacheHandler({ store, namespace })
    await new H().set('/x', appPage('x-tag'), { cacheControl: { revalidate: 1, expire: 10 } })
    expect(await new H({ revalidatedTags: [] }).get('/x', { kind: 'APP_PAGE' })).not.toBeNull()
    expect(await new H({ revalidatedTags: ['x-tag'] }).get('/x', { kind: 'APP_PAGE' })).toBeNull()
  })

  it('takes tags longer than Stowage’s 255 bytes (Next allows 256 characters) by a hash of them', async () => {
    const [a, b] = twoInstances()
    const long = `tag-${'é'.repeat(200)}`
    await a.set('/long', appPage(`${long},short`), { cacheControl: { revalidate: 1, expire: 10 } })
    expect(await b.get('/long', { kind: 'APP_PAGE' })).not.toBeNull()
    await b.revalidateTag(long)
    expect(await a.get('/long', { kind: 'APP_PAGE' })).toBeNull()
  })
})

describe('revalidateTag cost', () => {
  it('sends as many Redis commands at 2,000 tagged entries as at 20: O(tags), not O(keys)', async () => {
    // A redis-server of this test's own, so INFO counts only our commands.
    const server = await startRedisServer()
    const client = new Redis(server.url)
    try {
      const own = createRedisStore({ client })
      const commandsFor = async (entries: number) => {
        const H = createCacheHandler({ store: own, namespace: `cost-${entries}` })
        const h = new H()
        for (let i = 0; i < entries; i++) await h.set(`/item/${i}`, appPage('_N_T_/layout,items'), { cacheControl: { revalidate: false, expire: undefined } })
        // Once, so Redis has the scripts: a first call also sends each script's text.
        await h.revalidateTag(['warm-up'])
        const before = Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))![1])
        await h.revalidateTag(['items', '_N_T_/layout'])
        const after = Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))![1])
        expect(await h.get('/item/0', { kind: 'APP_PAGE' })).toBeNull()
        // The INFO call itself is one command.
        return after - before - 1
      }
      const few = await commandsFor(20)
      const many = await commandsFor(2000)
      expect(many).toBe(few)
      // Per tag: one script for its new generation, one for its time (Redis counts the commands each runs).
      expect(few).toBeLessThanOrEqual(16)
    } finally {
      await client.quit()
      await server.stop()
    }
  }, 60_000)
})

describe('a store that fails', () => {
  it('makes reads misses and writes no-ops, reported to onError, so Next renders instead of failing', async () => {
    const server = await startRedisServer()
    const down = createRedisStore({ url: server.url, commandTimeout: 200 })
    const errors: unknown[] = []
    const H = createCacheHandler({ store: down, namespace: 'down', onError: (e) => errors.push(e) })
    const h = new H()
    await h.set('/before', appPage('t'), { cacheControl: { revalidate: 1, expire: 10 } })
    expect(await h.get('/before', { kind: 'APP_PAGE' })).not.toBeNull()
    await server.stop()
    const started = Date.now()
    expect(await h.get('/before', { kind: 'APP_PAGE' })).toBeNull()
    await expect(h.set('/after', appPage('t'), { cacheControl: { revalidate: 1, expire: 10 } })).resolves.toBeUndefined()
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(errors.length).toBeGreaterThanOrEqual(2)
    await expect(h.revalidateTag('t')).rejects.toMatchObject({ code: 'STORE_ERROR' })
    await down.close()
  }, 30_000)
})
