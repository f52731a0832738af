// The 'use cache' handler (`cacheHandlers`) at the handler level, two instances over one real Redis.
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createCacheHandler, createUseCacheHandler, type NextUseCacheEntry, type StowageUseCacheHandler } from '../src/index.js'

let raw: Redis
let store: RedisStore
beforeAll(() => {
  raw = new Redis(inject('redisUrl'))
  store = createRedisStore({ client: raw })
})
afterAll(async () => {
  await store.clear('next-uc-test-')
  await raw.quit()
})

function twoInstances(): [StowageUseCacheHandler, StowageUseCacheHandler, string] {
  const namespace = `next-uc-test-${Math.random().toString(36).slice(2)}`
  return [createUseCacheHandler({ store, namespace }), createUseCacheHandler({ store, namespace }), namespace]
}

const text = new TextEncoder()
const streamOf = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(text.encode(chunk))
      controller.close()
    },
  })
const readText = async (stream: ReadableStream<Uint8Array>) => new TextDecoder().decode(new Uint8Array(await new Response(stream).arrayBuffer()))
const entry = (value: ReadableStream<Uint8Array>, tags: string[] = []): NextUseCacheEntry => ({ value, tags, stale: 30, timestamp: Date.now(), expire: 300, revalidate: 60 })

describe("cacheHandlers ('use cache')", () => {
  it('refuses an option it does not know, naming the one meant (a misspelt namespace would share the default one)', () => {
    expect(() => createUseCacheHandler({ store: {}, nameSpace: 'x' } as never)).toThrow('unknown Next.js handler option "nameSpace" (did you mean namespace?)')
  })

  it('stores the byte stream and gives every get a new stream of the same bytes, on the other instance too', async () => {
    const [a, b, namespace] = twoInstances()
    await a.set('k1', Promise.resolve(entry(streamOf('rsc ', 'payload ', 'chunks'), ['products'])))
    const first = await b.get('k1', [])
    const second = await b.get('k1', [])
    expect(first?.value).not.toBe(second?.value)
    expect(await readText(first!.value)).toBe('rsc payload chunks')
    expect(await readText(second!.value)).toBe('rsc payload chunks')
    expect(first).toMatchObject({ tags: ['products'], stale: 30, expire: 300, revalidate: 60 })
    const key = (await raw.keys(`${namespace}:*`)).find((k) => !k.includes('#'))!
    expect(((await raw.getBuffer(key)) as Buffer)[0]).toBe(0xc1)
    const ttl = await raw.pttl(key)
    expect(ttl).toBeGreaterThan(290_000)
    expect(ttl).toBeLessThanOrEqual(300_000)
  })

  it('makes a get that comes while a set of the same key is pending wait for it', async () => {
    const [a] = twoInstances()
    let finish!: (e: NextUseCacheEntry) => void
    const setting = a.set('slow', new Promise((resolve) => (finish = resolve)))
    const getting = a.get('slow', [])
    await new Promise((resolve) => setTimeout(resolve, 20))
    finish(entry(streamOf('late')))
    await setting
    expect(await readText((await getting)!.value)).toBe('late')
  })

  it('keeps no partial entry when the stream fails, and answers a miss', async () => {
    const errors: unknown[] = []
    const namespace = `next-uc-test-${Math.random().toString(36).slice(2)}`
    const h = createUseCacheHandler({ store, namespace, onError: (e) => errors.push(e) })
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(text.encode('half'))
        controller.error(new Error('render failed'))
      },
    })
    await h.set('broken', Promise.resolve(entry(failing)))
    expect(await h.get('broken', [])).toBeUndefined()
    expect(errors).toHaveLength(1)
  })

  it('updateTags on one instance (and Next 15’s expireTags) makes the other miss; getExpiration answers when', async () => {
    const [a, b] = twoInstances()
    await a.set('tagged', Promise.resolve(entry(streamOf('v1'), ['cart', 'user:1'])))
    expect(await b.getExpiration(['cart'])).toBe(0)
    const before = Date.now()
    await a.updateTags(['cart'])
    expect(await b.get('tagged', [])).toBeUndefined()
    expect(await b.getExpiration(['cart', 'other'])).toBeGreaterThanOrEqual(before)
    await b.set('tagged', Promise.resolve(entry(streamOf('v2'), ['cart', 'user:1'])))
    expect(await readText((await a.get('tagged', []))!.value)).toBe('v2')
    await b.expireTags('user:1')
    expect(await a.get('tagged', [])).toBeUndefined()
  })

  it('checks soft tags (the page’s implicit tags) by time: revalidated after the entry was made, it is a miss', async () => {
    const [a, b] = twoInstances()
    await a.set('soft', Promise.resolve({ ...entry(streamOf('x')), timestamp: Date.now() - 1_000 }))
    expect(await b.get('soft', ['_N_T_/shop'])).toBeDefined()
    await a.updateTags(['_N_T_/shop'])
    expect(await b.get('soft', ['_N_T_/shop'])).toBeUndefined()
    expect(await b.get('soft', ['_N_T_/elsewhere'])).toBeDefined()
  })

  it('shares tags with the incremental cacheHandler made from the same options: one revalidateTag reaches both', async () => {
    const namespace = `next-uc-test-${Math.random().toString(36).slice(2)}`
    const options = { store, namespace }
    const Isr = createCacheHandler(options)
    const uc = createUseCacheHandler(options)
    await uc.set('shared', Promise.resolve(entry(streamOf('x'), ['catalog'])))
    await new Isr().revalidateTag('catalog')
    expect(await uc.get('shared', [])).toBeUndefined()
  })
})
