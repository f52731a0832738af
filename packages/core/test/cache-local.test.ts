// The in-process tier holds what any process reads from the store: a decoded copy through the
// key's schema, never the caller's own object, frozen by default (issue #20 items 7 and 8).
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCache, createMemoryStore, StowageErrorCode } from '../src/index.js'
import { heldStore, record } from './cache-helpers.js'

const User = z.object({ id: z.number(), role: z.string().default('user') })

describe('Cache: one schema rule in the writing process and everywhere else', () => {
  it('a value set in this process reads back as its schema outputs it, as in another process', async () => {
    const { store } = heldStore()
    const cache = createCache({ store, namespace: 's', schemas: { 'user:*': User } })
    await cache.set('user:1', { id: 1 } as never) // the schema's input; set() is typed with its output
    const elsewhere = createCache({ store, namespace: 's', schemas: { 'user:*': User } })
    expect(await elsewhere.get('user:1')).toStrictEqual({ id: 1, role: 'user' })
    expect(await cache.get('user:1')).toStrictEqual({ id: 1, role: 'user' })
  })

  it('setMany keeps the same copies: the schema’s output, never the caller’s objects', async () => {
    const cache = createCache({ store: createMemoryStore(), namespace: 's', local: true, schemas: { 'user:*': User } })
    const mine = { id: 4 }
    await cache.setMany([{ key: 'user:4', value: mine as never }])
    mine.id = 999
    expect(await cache.get('user:4')).toStrictEqual({ id: 4, role: 'user' })
  })

  it('a value that fails its schema is a miss here too, and the write reports it', async () => {
    const { store } = heldStore()
    const cache = createCache({ store, namespace: 's', schemas: { 'user:*': User } })
    const errors = record(cache, 'error')
    await cache.set('user:2', { id: 'two' } as never)
    expect(errors.map((e) => [e.operation, e.error.code])).toStrictEqual([['set', StowageErrorCode.SCHEMA_MISMATCH]])
    expect(await cache.get('user:2')).toBeUndefined()
    expect(await createCache({ store, namespace: 's', schemas: { 'user:*': User } }).get('user:2')).toBeUndefined()
  })

  it('getOrSet returns the loaded value as its schema outputs it, with or without a local tier', async () => {
    for (const local of [true, false]) {
      const cache = createCache({ namespace: 's', local, schemas: { 'user:*': User } })
      expect(await cache.getOrSet('user:3', () => ({ id: 3 }) as never)).toStrictEqual({ id: 3, role: 'user' })
      expect(await cache.get('user:3')).toStrictEqual({ id: 3, role: 'user' })
    }
  })
})

describe('Cache: values the local tier shares', () => {
  it('a caller cannot change what later gets return: values are frozen by default', async () => {
    const { store } = heldStore()
    const cache = createCache({ store, namespace: 'm' }) // the local tier is on in front of a remote store
    await createCache({ store, namespace: 'm', local: false }).set('k', { n: 1, list: [{ deep: 1 }] })
    const a = (await cache.get('k')) as { n: number; list: Array<{ deep: number }> }
    expect(() => {
      a.n = 999
    }).toThrow(TypeError)
    expect(() => {
      a.list[0]!.deep = 999
    }).toThrow(TypeError)
    expect(await cache.get('k')).toStrictEqual({ n: 1, list: [{ deep: 1 }] })
  })

  it('set() keeps its own copy: the caller’s object stays the caller’s, mutable, and its changes reach nobody', async () => {
    const { store } = heldStore()
    const cache = createCache({ store, namespace: 'm' })
    const mine = { n: 1 }
    await cache.set('k', mine)
    mine.n = 999
    expect(Object.isFrozen(mine)).toBe(false)
    expect(await cache.get('k')).toStrictEqual({ n: 1 })
  })

  it('set() decodes its copy only when a reader here first asks for it, once; getOrSet callers get the frozen copy', async () => {
    class Point {
      constructor(readonly x: number) {}
    }
    let decodes = 0
    const codec = { extensions: [{ type: 1, class: Point, encode: (p: Point) => p.x, decode: (x: number) => (decodes++, new Point(x)) }] }
    const { store } = heldStore()
    const cache = createCache({ store, namespace: 'm', codec })
    await cache.set('k', { at: new Point(1) })
    expect(decodes).toBe(0)
    const a = (await cache.get('k')) as { at: Point }
    expect([decodes, a.at.x, Object.isFrozen(a)]).toStrictEqual([1, 1, true])
    expect(await cache.get('k')).toBe(a)
    expect(decodes).toBe(1)
    const loaded = { at: new Point(2) }
    const got = (await cache.getOrSet('l', async () => loaded)) as { at: Point }
    expect([got === loaded, got.at.x, Object.isFrozen(got), Object.isFrozen(loaded)]).toStrictEqual([false, 2, true, false])
    expect(await cache.get('l')).toBe(got)
  })

  it('a value read from the store comes deep-frozen (built so by the decoder); a schema and migrate get theirs unfrozen', async () => {
    const { store } = heldStore()
    const value = { n: 1, list: [{ deep: [1] }], rows: Array.from({ length: 300 }, (_, i) => ({ i, tags: ['a'] })), m: new Map([[1, { v: 1 }]]) }
    await createCache({ store, namespace: 'r', local: false }).set('k', value)
    await createCache({ store, namespace: 'r', local: false, version: 1 }).set('old', { n: 1 })
    const read = (await createCache({ store, namespace: 'r' }).get('k')) as typeof value
    expect([Object.isFrozen(read), Object.isFrozen(read.list[0]!.deep), Object.isFrozen(read.rows), Object.isFrozen(read.rows[299]!.tags), Object.isFrozen(read.m.get(1))]).toStrictEqual([true, true, true, true, true])
    expect(Object.isFrozen(read.m)).toBe(false) // Maps stay as they are, as deepFreeze leaves them
    // Given to a schema or to migrate first: they may change what they get.
    const Loose = z.object({ n: z.number(), list: z.array(z.unknown()) }).passthrough()
    const changing = { '~standard': { version: 1, vendor: 'test', validate: (v: unknown) => ((v as { n: number }).n = 2, Loose['~standard'].validate(v)) } }
    const viaSchema = (await createCache({ store, namespace: 'r', schemas: { k: changing as never } }).get('k')) as typeof value
    expect([viaSchema.n, Object.isFrozen(viaSchema), Object.isFrozen(viaSchema.list[0])]).toStrictEqual([2, true, true])
    const migrated = (await createCache({ store, namespace: 'r', version: 2, migrate: (v) => Object.assign(v as object, { migrated: true }) }).get('old')) as { migrated: boolean }
    expect([migrated.migrated, Object.isFrozen(migrated)]).toStrictEqual([true, true])
    const thawed = (await createCache({ store, namespace: 'r', local: { freeze: false } }).get('k')) as typeof value
    expect([Object.isFrozen(thawed), Object.isFrozen(thawed.rows[0])]).toStrictEqual([false, false])
    // openBytes (fetchCached's stored copy) gives it as get does: frozen, though not kept.
    const bytes = await createCache({ store, namespace: 'r' }).getBytes('k')
    const opened = (await createCache({ store, namespace: 'r' }).openBytes('k', bytes)) as typeof value
    expect([Object.isFrozen(opened), Object.isFrozen(opened.rows[0]!.tags)]).toStrictEqual([true, true])
    const openedThawed = (await createCache({ store, namespace: 'r', local: false }).openBytes('k', bytes)) as typeof value
    expect(Object.isFrozen(openedThawed)).toBe(false)
    // Too large for the tier: not kept, so each read gets a copy of its own, unfrozen as before (found by a review).
    const small = createCache({ store, namespace: 'r', local: { maxBytes: 100 } })
    const [one, two] = [(await small.get('k')) as typeof value, (await small.get('k')) as typeof value]
    expect([one === two, Object.isFrozen(one), Object.isFrozen(one.rows[0])]).toStrictEqual([false, false, false])
  })

  it('getMany with the in-process tier reads the keys it lacks in one getManyWithTtl call, keeps them as get does, and keeps none a write overtook', async () => {
    const { store: held, inner, state, release, waiting } = heldStore()
    const calls: string[][] = []
    const store = { ...held, getManyWithTtl: async (keys: readonly string[]) => (calls.push([...keys]), Promise.all(keys.map((key) => held.getWithTtl!(key)))) }
    const writer = createCache({ store: inner, namespace: 'g', local: false })
    await writer.set('a', { n: 1 })
    await writer.set('b', { n: 2 }, { ttl: 50 })
    const cache = createCache({ store, namespace: 'g', local: { ttl: 60_000 } })
    const first = (await cache.get('a')) as { n: number }
    state.held = true
    const reading = cache.getMany(['a', 'b', 'missing', 'b'])
    await new Promise((resolve) => setTimeout(resolve, 0))
    await cache.set('b', { n: 3 }) // while the batch read waits: its old value must not be kept
    while (waiting.length < 3) await new Promise((resolve) => setTimeout(resolve, 1))
    release()
    const values = (await reading) as Array<{ n: number } | undefined>
    expect(calls).toStrictEqual([['g:b', 'g:missing', 'g:b']]) // 'a' came from the tier
    expect(values[0]).toBe(first)
    expect([values[1]?.n, values[2], values[3]?.n, Object.isFrozen(values[1])]).toStrictEqual([2, undefined, 2, true])
    expect(((await cache.get('b')) as { n: number }).n).toBe(3)
    expect(cache.stats()).toMatchObject({ hits: 5, misses: 1 }) // get('a'), the batch's three, get('b')
    // A copy read in a batch lives no longer than its store entry (50 ms), as one read by get.
    await writer.set('c', { n: 4 }, { ttl: 50 })
    await cache.getMany(['c'])
    await new Promise((resolve) => setTimeout(resolve, 80))
    expect(await cache.get('c')).toBeUndefined()
  })

  it('freeze: false is the documented fast path: one shared, mutable object per key', async () => {
    const { store } = heldStore()
    const cache = createCache({ store, namespace: 'm', local: { freeze: false } })
    await cache.set('k', { n: 1 })
    const a = (await cache.get('k')) as { n: number }
    expect(Object.isFrozen(a)).toBe(false)
    expect(await cache.get('k')).toBe(a)
  })
})
