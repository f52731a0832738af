import { describe, expect, it } from 'vitest'
import { createCache, createCodec, createMemoryStore, DICTIONARY_KEY_PREFIX, inspect, loadDictionary, storeDictionary, StowageErrorCode, trainDictionary, type Store } from '../src/index.js'
import { crc32 } from '../src/codec/crc32.js'
import { record } from './cache-helpers.js'

// Small objects of one kind, as a cache of users holds: a dictionary trained on some compresses the others.
const user = (i: number) => ({ id: i, login: `user${i}`, url: `https://api.example.com/users/user${i}`, type: 'User', site_admin: false, repos: `https://api.example.com/users/user${i}/repos` })
const dictionary = trainDictionary(Array.from({ length: 300 }, (_, i) => user(i + 1000)), { size: 2048 })
const id = crc32(dictionary)
const key = (n: number) => `${DICTIONARY_KEY_PREFIX}${n.toString(16).padStart(8, '0')}`

// A store that counts its reads of each key.
function counting(store: Store): Store & { reads: Map<string, number> } {
  const reads = new Map<string, number>()
  return Object.assign(Object.create(store) as Store, {
    reads,
    get: async (k: string) => {
      reads.set(k, (reads.get(k) ?? 0) + 1)
      return store.get(k)
    },
  })
}

// Writes u1 as a process with the dictionary would, without storing the dictionary (a store
// written before dictionaries lived in it, or one whose dictionary was deleted).
async function createCodecCache(store: Store): Promise<void> {
  await store.set('users:u1', createCodec({ dictionaries: [dictionary] }).encode(user(1)))
}

describe('Dictionaries in the store (issue 19)', () => {
  it('a cache that was never given the dictionary reads values written with it, loading it from the store once', async () => {
    const store = createMemoryStore()
    const writer = createCache({ store, namespace: 'users', codec: { dictionaries: [dictionary] } })
    for (let i = 0; i < 20; i++) await writer.set(`u${i}`, user(i))
    expect(inspect((await store.get('users:u1'))!).dictionaryId).toBe(id)
    expect(await storeDictionary(store, dictionary)).toBe(id)

    const seen = counting(store)
    const reader = createCache({ store: seen, namespace: 'users', local: false })
    const values = await Promise.all(Array.from({ length: 20 }, (_, i) => reader.get(`u${i}`)))
    expect(values).toStrictEqual(Array.from({ length: 20 }, (_, i) => user(i)))
    expect(seen.reads.get(key(id))).toBe(1)
    expect(await reader.get('u3')).toStrictEqual(user(3))
    expect(seen.reads.get(key(id))).toBe(1)
  })

  it('a cache whose codec has dictionaries stores them before its first write', async () => {
    const store = createMemoryStore()
    const writer = createCache({ store, namespace: 'users', codec: { dictionaries: [dictionary] } })
    expect(await store.get(key(id))).toBeUndefined()
    await writer.set('u1', user(1))
    expect(createCodec().decode(await store.get(key(id)) as Uint8Array)).toStrictEqual(Uint8Array.from(dictionary))
    expect(await createCache({ store, namespace: 'users' }).get('u1')).toStrictEqual(user(1))
    // A cache without dictionaries writes none.
    const plainStore = createMemoryStore()
    await createCache({ store: plainStore, namespace: 'users' }).set('u1', user(1))
    const keys: string[] = []
    for await (const k of plainStore.keys!('')) keys.push(k)
    expect(keys).toStrictEqual(['users:u1'])
  })

  it('without the dictionary in the store, a read misses as unsupported and the entry stays', async () => {
    const store = createMemoryStore()
    await createCodecCache(store)
    const reader = createCache({ store, namespace: 'users', local: false })
    const misses = record(reader, 'miss')
    const errors = record(reader, 'error')
    expect(await reader.get('u1')).toBeUndefined()
    expect(misses.map((m) => m.reason)).toStrictEqual(['unsupported'])
    expect(errors[0]?.error.code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    expect(errors[0]?.error.message).toMatch(/dictionary [0-9a-f]{8}/)
    expect(await store.get('users:u1')).toBeDefined()
  })

  it('refuses a stored dictionary whose bytes do not match its id, and never returns a wrong value', async () => {
    const store = createMemoryStore()
    const writer = createCache({ store, namespace: 'users', codec: { dictionaries: [dictionary] } })
    await writer.set('u1', user(1))
    // A forged entry: another dictionary stored under this dictionary's id.
    const other = trainDictionary(Array.from({ length: 300 }, (_, i) => ({ sku: i, title: `item ${i}` })), { size: 2048 })
    await store.set(key(id), createCodec({ compress: 'never' }).encode(other))
    const reader = createCache({ store, namespace: 'users', local: false })
    const errors: unknown[] = []
    reader.on('error', (e) => errors.push(e.error))
    expect(await reader.get('u1')).toBeUndefined()
    const error = errors[0] as { code: string; cause?: { code: string; message: string } }
    expect(error.code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    expect(error.cause?.code).toBe(StowageErrorCode.CORRUPT)
    expect(error.cause?.message).toMatch(/another id/)
    // Not an envelope at all, under the key: refused the same way.
    await store.set(key(id), new Uint8Array([1, 2, 3]))
    const third = createCache({ store, namespace: 'users', local: false })
    expect(await third.get('u1')).toBeUndefined()
  })

  it('a dictionary stored after a miss is found once the miss is old enough to look again', async () => {
    const store = createMemoryStore()
    await createCodecCache(store)
    const reader = createCache({ store, namespace: 'users', local: false })
    expect(await reader.get('u1')).toBeUndefined()
    await storeDictionary(store, dictionary)
    const fresh = createCache({ store, namespace: 'users', local: false })
    expect(await fresh.get('u1')).toStrictEqual(user(1))
  })

  it('keeps dictionaries out of every cache key and every clear', async () => {
    const store = createMemoryStore()
    await storeDictionary(store, dictionary)
    const cache = createCache({ store, namespace: 'users' })
    await cache.set(`#dict:${id.toString(16).padStart(8, '0')}`, 'a value')
    await cache.clear()
    expect(await store.get(key(id))).toBeDefined()
    expect(createCodec().decode(await store.get(key(id)) as Uint8Array)).toStrictEqual(Uint8Array.from(dictionary))
  })

  it('loadDictionary gives the stored bytes, undefined when absent, and CORRUPT for an entry of another id or no envelope', async () => {
    const store = createMemoryStore()
    expect(await loadDictionary(store, id)).toBeUndefined()
    await storeDictionary(store, dictionary)
    expect(await loadDictionary(store, id)).toStrictEqual(dictionary)
    await store.set(key(id), createCodec({ compress: 'never' }).encode(new Uint8Array([9, 9, 9])))
    await expect(loadDictionary(store, id)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    await store.set(key(id), new Uint8Array([1, 2, 3]))
    await expect(loadDictionary(store, id)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    await store.set(key(id), createCodec({ compress: 'never' }).encode({ not: 'bytes' }))
    await expect(loadDictionary(store, id)).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
  })

  it('storeDictionary refuses an empty dictionary and one over 32 KiB', async () => {
    const store = createMemoryStore()
    await expect(storeDictionary(store, new Uint8Array(0))).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
    await expect(storeDictionary(store, new Uint8Array(32 * 1024 + 1))).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
  })
})
