import { describe, expectTypeOf, it } from 'vitest'
import { createCache, type Cache } from '../src/index.js'

interface User {
  id: number
  name: string
}
interface Post {
  title: string
}
type Schema = { 'user:*': User; 'posts:home': Post[]; 'session:*:token': string }

describe('typed caches', () => {
  const cache = createCache<Schema>()

  it('give each key pattern its value type', () => {
    expectTypeOf(cache.get('user:42')).toEqualTypeOf<Promise<User | undefined>>()
    expectTypeOf(cache.get('posts:home')).toEqualTypeOf<Promise<Post[] | undefined>>()
    expectTypeOf(cache.get('session:abc:token')).toEqualTypeOf<Promise<string | undefined>>()
    expectTypeOf(cache.getMany(['user:1', 'user:2'])).toEqualTypeOf<Promise<Array<User | undefined>>>()
  })

  it('refuse unknown keys and wrong values', () => {
    // @ts-expect-error not a key of the schema
    void cache.get('nope')
    // @ts-expect-error a User is needed
    void cache.set('user:1', { title: 'not a user' })
    void cache.set('user:1', { id: 1, name: 'Ada' })
    // @ts-expect-error the loader must produce a Post[]
    void cache.getOrSet('posts:home', () => 42)
  })

  it('infer getOrSet from the loader, narrowed by the schema', async () => {
    const posts = await cache.getOrSet('posts:home', async () => [{ title: 'Hello' }])
    expectTypeOf(posts).toEqualTypeOf<{ title: string }[]>()
  })

  it('keep child namespaces typed', () => {
    expectTypeOf(cache.withNamespace('eu')).toEqualTypeOf<Cache<Schema>>()
  })
})

describe('untyped caches', () => {
  const cache = createCache()

  it('take any key; values are unknown unless asserted', () => {
    expectTypeOf(cache.get('anything')).toEqualTypeOf<Promise<unknown>>()
    expectTypeOf(cache.get<User>('user:1')).toEqualTypeOf<Promise<User | undefined>>()
    void cache.set('x', new Map([[1, 2]]))
  })

  it('infer getOrSet from the loader', async () => {
    const n = await cache.getOrSet('n', () => 42)
    expectTypeOf(n).toEqualTypeOf<number>()
  })
})

describe('caches typed by their schemas', () => {
  it('take keys and value types from Standard Schemas', async () => {
    const { z } = await import('zod')
    const cache = createCache({ schemas: { 'user:*': z.object({ id: z.number(), name: z.string() }), 'flags': z.array(z.string()) } })
    expectTypeOf(cache.get('user:7')).toEqualTypeOf<Promise<{ id: number; name: string } | undefined>>()
    expectTypeOf(cache.get('flags')).toEqualTypeOf<Promise<string[] | undefined>>()
    // @ts-expect-error not a key of the schemas
    void cache.get('nope')
    // @ts-expect-error a user needs a name
    void cache.set('user:1', { id: 1 })
  })
})
