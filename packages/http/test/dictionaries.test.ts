// Dictionaries over HTTP (issue 19): serveCached names the dictionary of an envelope that needs one,
// serveDictionary serves it for good, and fetchCached fetches one it lacks, checks it and keeps it.
import { createCache, createCodec, createMemoryStore, dictionaryId, inspect, loadDictionary, storeDictionary, StowageError, StowageErrorCode, trainDictionary, type Cache } from '@stowage/core'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { DICTIONARY_CACHE_CONTROL, DICTIONARY_HEADER, fetchCachedWithInfo, fromNodeRequest, sendNodeResponse, serveCached, serveDictionary } from '../src/index.js'

const user = (i: number) => ({ login: `user${i}`, id: 1000 + i, url: `https://api.github.com/users/user${i}`, html_url: `https://github.com/user${i}`, type: 'User', site_admin: false })
const dictionary = trainDictionary(Array.from({ length: 300 }, (_, i) => user(i + 500)), { size: 2048 })
const hex = dictionaryId(dictionary).toString(16).padStart(8, '0')

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

// A node:http origin: /entries/:key from `cache`, /dictionaries/:id from its store; `dictionaries`
// answers for a dictionary instead, when given (a forged or failing one).
async function origin(cache: Cache, dictionaries?: () => Response): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = []
  const server = createServer((req, res) => {
    const path = req.url ?? ''
    asked.push(path)
    const request = fromNodeRequest(req)
    const answer = path.startsWith('/dictionaries/')
      ? dictionaries !== undefined
        ? Promise.resolve(dictionaries())
        : serveDictionary(request, { store: cache.store, id: path.slice('/dictionaries/'.length), shared: true })
      : serveCached(request, { cache, key: path.slice('/entries/'.length), dictionaryUrl: (id) => `/dictionaries/${id}` })
    answer.then((r) => sendNodeResponse(res, r)).catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  close = () => new Promise((r) => server.close(() => r()))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked }
}

describe('dictionaries over HTTP', () => {
  it('a client that never had the dictionary fetches it once, keeps it in its store, and reads the value', async () => {
    const server = createCache({ namespace: 'origin', codec: { dictionaries: [dictionary] } })
    await server.set('u7', user(7))
    expect(inspect((await server.getBytes('u7'))!).dictionaryId).toBe(dictionaryId(dictionary))
    const { url, asked } = await origin(server)

    const served = await fetch(`${url}/entries/u7`, { headers: { Accept: 'application/vnd.stowage' } })
    expect(served.headers.get(DICTIONARY_HEADER)).toBe(`/dictionaries/${hex}`)
    await served.arrayBuffer()
    const dict = await fetch(`${url}/dictionaries/${hex}`)
    expect(dict.status).toBe(200)
    expect(dict.headers.get('Cache-Control')).toBe(DICTIONARY_CACHE_CONTROL)
    await dict.arrayBuffer()
    asked.length = 0

    for (const inflate of [false, true]) {
      const store = createMemoryStore()
      const client = createCache({ store, namespace: 'client' })
      const got = await fetchCachedWithInfo(`${url}/entries/u7`, { cache: client, inflate })
      expect(got.value).toStrictEqual(user(7))
      expect(await loadDictionary(store, dictionaryId(dictionary))).toStrictEqual(dictionary)
      // Kept inflated (browsers), the stored copy needs no dictionary; kept as received, it names it.
      expect(inspect(got.bytes).dictionaryId).toBe(inflate ? undefined : dictionaryId(dictionary))
      expect(await client.get(`${url}/entries/u7`)).toStrictEqual(user(7))
      // Revalidated: a 304, no second fetch of the dictionary.
      expect((await fetchCachedWithInfo(`${url}/entries/u7`, { cache: client, inflate })).source).toBe('revalidated')
    }
    expect(asked.filter((p) => p.startsWith('/dictionaries/'))).toEqual([`/dictionaries/${hex}`, `/dictionaries/${hex}`])
  })

  it('refuses a dictionary whose bytes have another id, and keeps nothing', async () => {
    const server = createCache({ namespace: 'origin', codec: { dictionaries: [dictionary] } })
    await server.set('u7', user(7))
    const forged = createCodec({ compress: 'never' }).encode(new Uint8Array(2048).fill(3))
    const { url } = await origin(server, () => new Response(forged as Uint8Array<ArrayBuffer>, { status: 200 }))
    const store = createMemoryStore()
    const client = createCache({ store, namespace: 'client' })
    await expect(fetchCachedWithInfo(`${url}/entries/u7`, { cache: client })).rejects.toMatchObject({ code: StowageErrorCode.CORRUPT })
    expect(await loadDictionary(store, dictionaryId(dictionary))).toBeUndefined()
    expect(await client.getBytes(`${url}/entries/u7`)).toBeUndefined()
  })

  it('a dictionary the server cannot serve is an error that names it, not a wrong value', async () => {
    const server = createCache({ namespace: 'origin', codec: { dictionaries: [dictionary] } })
    await server.set('u7', user(7))
    const { url } = await origin(server, () => new Response(null, { status: 404 }))
    const client = createCache({ store: createMemoryStore(), namespace: 'client' })
    await expect(fetchCachedWithInfo(`${url}/entries/u7`, { cache: client })).rejects.toMatchObject({ code: StowageErrorCode.STORE_ERROR, message: expect.stringContaining(`/dictionaries/${hex}`) })
  })

  it('serveDictionary: 404 for an unknown or malformed id, 405 for other methods', async () => {
    const store = createMemoryStore()
    const get = (id: string) => serveDictionary({ method: 'GET', headers: new Headers() }, { store, id, shared: true })
    expect((await get('00000000')).status).toBe(404)
    expect((await get('../../etc')).status).toBe(404)
    expect((await serveDictionary({ method: 'POST', headers: new Headers() }, { store, id: hex, shared: true })).status).toBe(405)
  })
})

describe('serveDictionary serves only what the app declares shared', () => {
  it('refuses without shared: true (a dictionary holds pieces of its samples, and anyone may ask for it)', async () => {
    const store = createMemoryStore()
    const dictionary = trainDictionary(Array.from({ length: 50 }, (_, i) => ({ email: `person${i}@example.com`, token: `secret-${i}` })), { size: 1024 })
    await storeDictionary(store, dictionary)
    const id = dictionaryId(dictionary).toString(16).padStart(8, '0')
    const request = { method: 'GET', headers: new Headers() }
    const error = await serveDictionary(request, { store, id } as never).catch((e: unknown) => e)
    expect(StowageError.isInstance(error) && error.code).toBe(StowageErrorCode.INVALID_ARGUMENT)
    expect(String((error as Error).message)).toContain('shared: true')
    expect((await serveDictionary(request, { store, id, shared: true })).status).toBe(200)
  })

  it('with a list of ids, serves those and answers 404 for the others (a per-user dictionary in the same store)', async () => {
    const store = createMemoryStore()
    const publicOne = trainDictionary(Array.from({ length: 50 }, (_, i) => ({ country: `Country ${i}`, capital: `Capital ${i}` })), { size: 1024 })
    const perUser = trainDictionary(Array.from({ length: 50 }, (_, i) => ({ email: `person${i}@example.com`, token: `secret-${i}` })), { size: 1024 })
    await storeDictionary(store, publicOne)
    await storeDictionary(store, perUser)
    const hex = (d: Uint8Array) => dictionaryId(d).toString(16).padStart(8, '0')
    const request = { method: 'GET', headers: new Headers() }
    const shared = [hex(publicOne)]
    expect((await serveDictionary(request, { store, id: hex(publicOne), shared })).status).toBe(200)
    const refused = await serveDictionary(request, { store, id: hex(perUser), shared })
    expect([refused.status, await refused.arrayBuffer()]).toStrictEqual([404, new ArrayBuffer(0)])
    for (const bad of [['not-hex'], [hex(publicOne).toUpperCase()], 'all', false]) {
      const error = await serveDictionary(request, { store, id: hex(publicOne), shared: bad } as never).catch((e: unknown) => e)
      expect(StowageError.isInstance(error) && error.code, JSON.stringify(bad)).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })
})
