import { describe, expect, it } from 'vitest'
import { createCache, createCodec, createMemoryStore, dictionaryKey, dictionaryPointerKey, inspect, storeDictionary, StowageErrorCode, trainDictionary, type Store } from '../src/index.js'
import { record, until } from './cache-helpers.js'

const user = (i: number) => ({ login: `user${i}`, id: 1000 + i, url: `https://api.github.com/users/user${i}`, html_url: `https://github.com/user${i}`, repos_url: `https://api.github.com/users/user${i}/repos`, type: 'User', site_admin: false })

// Writes users from `from` on until the envelope of the last names a dictionary (training runs beside the writes).
async function writeUntilTrained(cache: ReturnType<typeof createCache>, store: Store, from: number): Promise<number> {
  let i = from
  await until(async () => {
    await cache.set(`u${i}`, user(i))
    return inspect((await store.get(`users:u${i++}`))!).dictionaryId !== undefined
  }, 5_000)
  return i
}

describe('autoDictionary (issue 19)', () => {
  it('samples the values written, trains, stores the dictionary and its pointer, and writes with it from then on', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'users', autoDictionary: { samples: 20 }, local: false })
    for (let i = 0; i < 20; i++) await cache.set(`u${i}`, user(i))
    const plainBytes = (await store.get('users:u3'))!.length
    const end = await writeUntilTrained(cache, store, 20)
    const last = (await store.get(`users:u${end - 1}`))!
    const id = inspect(last).dictionaryId!
    expect(await store.get(dictionaryKey(id))).toBeDefined()
    expect(await store.get(dictionaryPointerKey('users'))).toBeDefined()
    expect(last.length).toBeLessThan(plainBytes * 0.6)
    // A cache that never trained reads every value, old and new.
    const reader = createCache({ store, namespace: 'users', local: false })
    for (const i of [3, end - 1]) expect(await reader.get(`u${i}`)).toStrictEqual(user(i))
    // So does the writer itself.
    expect(await cache.get(`u${end - 1}`)).toStrictEqual(user(end - 1))
  })

  it('a cache that starts over a namespace with a dictionary adopts it before its first writes, without sampling', async () => {
    const store = createMemoryStore()
    const first = createCache({ store, namespace: 'users', autoDictionary: { samples: 20 } })
    for (let i = 0; i < 20; i++) await first.set(`u${i}`, user(i))
    const trained = await writeUntilTrained(first, store, 20)
    const id = inspect((await store.get(`users:u${trained - 1}`))!).dictionaryId
    const later = createCache({ store, namespace: 'users', autoDictionary: { samples: 20 } })
    // Adoption runs beside the first write: within a write or two, far before 20 samples.
    const end = await writeUntilTrained(later, store, 1000)
    expect(end).toBeLessThan(1000 + 3)
    expect(inspect((await store.get(`users:u${end - 1}`))!).dictionaryId).toBe(id)
  })

  it('once a dictionary is adopted, acceptBytes keeps a deflated envelope as it came, as the cache now writes deflated', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'users', autoDictionary: { samples: 20 }, codec: { compressThreshold: 256 * 1024 }, local: false })
    const sent = createCodec({ compressThreshold: 1024 }).encode(Array.from({ length: 50 }, (_, i) => user(i)))
    expect(inspect(sent).compression).toBe('deflate-raw')
    await cache.acceptBytes('before', sent)
    expect(inspect((await store.get('users:before'))!).compression).toBe('none')
    for (let i = 0; i < 20; i++) await cache.set(`u${i}`, user(i))
    await writeUntilTrained(cache, store, 20)
    await cache.acceptBytes('after', sent)
    expect(inspect((await store.get('users:after'))!).compression).toBe('deflate-raw')
  })

  it('two caches training at once over one store converge on one dictionary', async () => {
    const store = createMemoryStore()
    const a = createCache({ store, namespace: 'users', autoDictionary: { samples: 20 } })
    const b = createCache({ store, namespace: 'users', autoDictionary: { samples: 20 } })
    // Each samples values of its own, so each trains a dictionary of its own bytes.
    for (let i = 0; i < 20; i++) await Promise.all([a.set(`a${i}`, user(i)), b.set(`b${i}`, user(i + 5000))])
    let ia = 20
    let ib = 20
    await until(async () => {
      await Promise.all([a.set(`a${ia}`, user(ia)), b.set(`b${ib}`, user(ib + 5000))])
      const da = inspect((await store.get(`users:a${ia++}`))!).dictionaryId
      const db = inspect((await store.get(`users:b${ib++}`))!).dictionaryId
      return da !== undefined && db !== undefined
    }, 5_000)
    expect(inspect((await store.get(`users:a${ia - 1}`))!).dictionaryId).toBe(inspect((await store.get(`users:b${ib - 1}`))!).dictionaryId)
  })

  it('trains again when the values drift, and values written with the old dictionary stay readable', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'users', autoDictionary: { samples: 20, checkEvery: 10 }, local: false })
    for (let i = 0; i < 20; i++) await cache.set(`u${i}`, user(i))
    let i = await writeUntilTrained(cache, store, 20)
    const first = inspect((await store.get(`users:u${i - 1}`))!).dictionaryId
    // The first 100 writes with it set the baseline.
    for (let n = 0; n < 100; n++, i++) await cache.set(`u${i}`, user(i))
    // Then values of another kind: they compress far worse with it, and a new round trains on them.
    const order = (n: number) => ({ sku: `SKU-${(n * 7919) % 100_000}`, qty: n % 9, warehouse: ['north', 'south', 'east'][n % 3], note: `order ${n} packed by team ${n % 13}` })
    let second: number | undefined
    await until(async () => {
      await cache.set(`o${i}`, order(i))
      second = inspect((await store.get(`users:o${i++}`))!).dictionaryId
      return second !== undefined && second !== first
    }, 5_000)
    expect(await store.get(dictionaryKey(first!))).toBeDefined()
    const reader = createCache({ store, namespace: 'users', local: false })
    expect(await reader.get('u25')).toStrictEqual(user(25))
    expect(await reader.get(`o${i - 1}`)).toStrictEqual(order(i - 1))
  })

  it('adopts a pointer to one of its own dictionaries without listing it twice', async () => {
    const store = createMemoryStore()
    const own = trainDictionary(Array.from({ length: 50 }, (_, i) => user(i + 300)), { size: 1024 })
    const id = await storeDictionary(store, own)
    await store.set(dictionaryPointerKey('users'), createCodec({ compress: 'never', maxDepth: 1, maxItems: 1 }).encode(id))
    const cache = createCache({ store, namespace: 'users', codec: { dictionaries: [own] }, autoDictionary: { samples: 20 } })
    const errors = record(cache, 'error')
    const end = await writeUntilTrained(cache, store, 0)
    expect(inspect((await store.get(`users:u${end - 1}`))!).dictionaryId).toBe(id)
    expect(errors).toStrictEqual([])
  })

  it('refuses bad options', () => {
    expect(() => createCache({ autoDictionary: { samples: 1 } })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
    expect(() => createCache({ autoDictionary: { size: 100 } })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
    expect(() => createCache({ autoDictionary: 'yes' as never })).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
  })

  it('values too small to learn from are one error event; after checkEvery writes the cache samples again and trains on larger values', async () => {
    const store = createMemoryStore()
    const cache = createCache({ store, namespace: 'tiny', autoDictionary: { samples: 20, checkEvery: 50 }, local: false })
    const errors = record(cache, 'error')
    for (let i = 0; i < 200; i++) await cache.set(`t${i}`, [i])
    await new Promise((r) => setTimeout(r, 20))
    expect(errors.map((e) => [e.operation, e.error.code])).toStrictEqual([['train', StowageErrorCode.INVALID_ARGUMENT]])
    expect(errors[0]!.error.message).toContain('nothing to learn from')
    expect(await store.get(dictionaryPointerKey('tiny'))).toBeUndefined()
    expect(await cache.get('t199')).toStrictEqual([199])
    // The values grow: the next round of samples trains a dictionary, and no second error is told.
    let i = 0
    await until(async () => {
      await cache.set(`u${i}`, user(i))
      return inspect((await store.get(`tiny:u${i++}`))!).dictionaryId !== undefined
    }, 5_000)
    expect(await store.get(dictionaryPointerKey('tiny'))).toBeDefined()
    expect(errors).toHaveLength(1)
  })

  it('refuses an autoDictionary option it does not know', () => {
    expect(() => createCache({ autoDictionary: { sample: 20 } as never })).toThrow('unknown autoDictionary option "sample" (did you mean samples?)')
  })

  it('a pointer to a dictionary the store lacks is an error event, and writes go on without a dictionary', async () => {
    const store = createMemoryStore()
    await store.set(dictionaryPointerKey('users'), createCodec({ compress: 'never', maxDepth: 1, maxItems: 1 }).encode(0x12345678))
    const cache = createCache({ store, namespace: 'users', autoDictionary: { samples: 20 } })
    const errors = record(cache, 'error')
    await new Promise((r) => setTimeout(r, 20))
    await cache.set('u1', user(1))
    expect(inspect((await store.get('users:u1'))!).dictionaryId).toBeUndefined()
    expect(errors.map((e) => [e.operation, e.error.code])).toStrictEqual([['train', StowageErrorCode.CORRUPT]])
    expect(await cache.get('u1')).toStrictEqual(user(1))
  })
})
