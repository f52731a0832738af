// cache.getMany with the in-process tier reads the keys the tier lacks in one Store.getManyWithTtl
// call: it must answer, count, keep and fail as Promise.all of gets does (cases found by a review).
import { expect, it } from 'vitest'
import { createCache, createMemoryStore, type Store } from '../src/index.js'
import { sleep } from './cache-helpers.js'

for (const mode of ['getMany', 'Promise.all(get)'] as const) {
  it(`readErrors 'throw': a key still opening when the batch rejects is not kept after a write overtook it (${mode})`, async () => {
    const inner = createMemoryStore()
    const state = { failTags: false }
    // Tag generations are read with getMany: failing them fails the tagged key's open.
    const store: Store = Object.assign(Object.create(inner), {
      name: 'remote',
      getMany: async (keys: readonly string[]) => {
        if (state.failTags) throw new Error('down')
        return inner.getMany(keys)
      },
    })
    await createCache({ store: inner, namespace: 'n', local: false, version: 0 }).set('c', { n: 1 })
    await createCache({ store: inner, namespace: 'n', local: false, version: 1 }).set('t', 'tagged', { tags: ['x'] })
    let release!: () => void
    const migrating = new Promise<void>((resolve) => (release = resolve))
    const cache = createCache({ store, namespace: 'n', version: 1, readErrors: 'throw', breaker: false, migrate: async (v: unknown) => (await migrating, v) })
    state.failTags = true
    const read = mode === 'getMany' ? cache.getMany(['c', 't']) : Promise.all(['c', 't'].map((k) => cache.get(k)))
    await expect(read).rejects.toMatchObject({ code: 'STORE_ERROR' })
    await cache.set('c', { n: 2 }) // after the read failed; c's old entry is still being migrated
    release()
    await sleep(10)
    expect(await cache.get('c')).toStrictEqual({ n: 2 }) // not the overtaken { n: 1 } from the tier
  })
}

for (const mode of ['getMany', 'Promise.all(get)'] as const) {
  it(`a batch over a dead store counts its keys' failures toward the breaker as gets did (${mode})`, async () => {
    const inner = createMemoryStore()
    const down = async () => { throw new Error('connection refused') }
    const store: Store = { name: 'remote', get: down, getWithTtl: down, getManyWithTtl: down, set: (k, v, o) => inner.set(k, v, o), delete: (k) => inner.delete(k) }
    const cache = createCache({ store, namespace: 'n', breaker: { failures: 3 } })
    const states: string[] = []
    cache.on('breaker', (e) => states.push(e.state))
    const keys = ['a', 'b', 'c']
    await (mode === 'getMany' ? cache.getMany(keys) : Promise.all(keys.map((k) => cache.get(k))))
    expect(cache.stats().errors).toBe(3)
    expect(states).toStrictEqual(['open']) // the failed batch is read again key by key
  })
}
