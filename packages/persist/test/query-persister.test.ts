import { createIdbStore } from '@stowage/idb'
import { createCodec, MAGIC, StowageErrorCode, type Codec } from '@stowage/core'
import { QueryClient } from '@tanstack/query-core'
import { describe, expect, it, vi } from 'vitest'
import { createQuerySerializer, createQueryStorage, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, landed, recordingStore, richData, sleep } from './helpers.js'


function setup(persister: ReturnType<typeof createStowageQueryPersister>) {
  return new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, staleTime: Infinity, gcTime: Infinity } } })
}

describe('per-query persister', () => {
  it('stores each fetched query as an envelope and restores it, rich types intact, without calling queryFn', async () => {
    const name = dbName()
    const first = createStowageQueryPersister({ dbName: name })
    await setup(first).fetchQuery({ queryKey: ['user', 7], queryFn: async () => richData(7) })
    const bytes = await landed(first.store, 'tanstack-query-["user",7]')
    expect(bytes).toBeInstanceOf(Uint8Array)
    expect(bytes![0]).toBe(MAGIC)

    const queryFn = vi.fn(async () => 'fetched again')
    const second = setup(createStowageQueryPersister({ dbName: name }))
    expect(await second.fetchQuery({ queryKey: ['user', 7], queryFn })).toStrictEqual(richData(7))
    expect(queryFn).not.toHaveBeenCalled()
  })

  it('discards an entry saved with another buster', async () => {
    const name = dbName()
    await setup(createStowageQueryPersister({ dbName: name, buster: 'v1' })).fetchQuery({ queryKey: ['a'], queryFn: async () => 'old' })
    await sleep(10)
    const v2 = createStowageQueryPersister({ dbName: name, buster: 'v2' })
    expect(await setup(v2).fetchQuery({ queryKey: ['a'], queryFn: async () => 'new' })).toBe('new')
  })

  it('discards an entry older than maxAge, and the store forgets it after maxAge too', async () => {
    const name = dbName()
    // A maxAge with room for a slow browser between the write and the first read (40 ms was not).
    const p = createStowageQueryPersister({ dbName: name, maxAge: 400 })
    await setup(p).fetchQuery({ queryKey: ['a'], queryFn: async () => 'old' })
    await landed(p.store, 'tanstack-query-["a"]')
    expect(await p.retrieveQuery('["a"]')).toBe('old')
    await sleep(600)
    expect(await p.store.get('tanstack-query-["a"]')).toBeUndefined() // the store's own TTL
    expect(await setup(createStowageQueryPersister({ dbName: name, maxAge: 400 })).fetchQuery({ queryKey: ['a'], queryFn: async () => 'new' })).toBe('new')
  })

  it('persists setQueryData when asked to watch the client', async () => {
    const name = dbName()
    const p = createStowageQueryPersister({ dbName: name })
    const qc = setup(p)
    const stop = p.persistManualUpdates(qc)
    qc.setQueryData(['draft'], { at: new Date(5), body: 'hello' })
    await sleep(20)
    stop()
    qc.setQueryData(['draft'], { at: new Date(6), body: 'not persisted' })
    await sleep(20)
    const again = setup(createStowageQueryPersister({ dbName: name }))
    expect(await again.fetchQuery({ queryKey: ['draft'], queryFn: async () => 'fetched' })).toStrictEqual({ at: new Date(5), body: 'hello' })
  })

  it('persistManualUpdates encodes after setQueryData returns, in background slices, and writes the latest state (#20-16)', async () => {
    const store = recordingStore()
    const base = createCodec({ compressThreshold: 1024 })
    let encodes = 0
    const codec: Codec = Object.assign(Object.create(base) as Codec, { encode: (value: unknown) => (encodes++, base.encode(value)) })
    const p = createStowageQueryPersister({ store, codec, sliceMs: 1 })
    const qc = setup(p)
    const stop = p.persistManualUpdates(qc)
    for (let i = 0; i < 1000; i++) qc.setQueryData(['row', i], { i, text: 'z'.repeat(500) })
    qc.setQueryData(['row', 0], { i: 0, text: 'latest' })
    expect(encodes).toBe(0) // nothing encoded inside setQueryData
    for (let waited = 0; (await keysOf(store)).length < 1000 && waited < 20_000; waited += 100) await sleep(100)
    stop()
    expect(encodes).toBe(1000) // one encode per query, its latest state
    expect(store.writes.length).toBeGreaterThan(1) // one batch per slice, not one task
    const again = setup(createStowageQueryPersister({ store }))
    expect(await again.fetchQuery({ queryKey: ['row', 0], queryFn: async () => 'fetched' })).toStrictEqual({ i: 0, text: 'latest' })
    expect(await again.fetchQuery({ queryKey: ['row', 999], queryFn: async () => 'fetched' })).toStrictEqual({ i: 999, text: 'z'.repeat(500) })
  }, 30_000)

  it('does not persist setQueryData without persistManualUpdates (TanStack writes after queryFn only)', async () => {
    const p = createStowageQueryPersister({ dbName: dbName() })
    setup(p).setQueryData(['draft'], 1)
    await sleep(20)
    expect(await keysOf(p.store)).toStrictEqual([])
  })

  it('restoreQueries and persisterGc read the entries of its prefix only', async () => {
    const store = createIdbStore({ dbName: dbName() })
    await store.set('unrelated', new Uint8Array([1, 2]))
    const p = createStowageQueryPersister({ store })
    const qc = setup(p)
    await qc.fetchQuery({ queryKey: ['x', 1], queryFn: async () => new Map([[1, 'one']]) })
    await qc.fetchQuery({ queryKey: ['x', 2], queryFn: async () => 2n })
    await sleep(20)
    const fresh = new QueryClient()
    await p.restoreQueries(fresh)
    expect(fresh.getQueryData(['x', 1])).toStrictEqual(new Map([[1, 'one']]))
    expect(fresh.getQueryData(['x', 2])).toBe(2n)
    await p.persisterGc()
    expect(await keysOf(store)).toStrictEqual(['tanstack-query-["x",1]', 'tanstack-query-["x",2]', 'unrelated'])
  })

  it('drops an entry whose bytes are damaged and fetches instead', async () => {
    const name = dbName()
    const p = createStowageQueryPersister({ dbName: name })
    await setup(p).fetchQuery({ queryKey: ['a'], queryFn: async () => 'stored' })
    const bytes = await landed(p.store, 'tanstack-query-["a"]')
    bytes[bytes.length - 1]! ^= 0xff
    await p.store.set('tanstack-query-["a"]', bytes)
    expect(await setup(createStowageQueryPersister({ dbName: name })).fetchQuery({ queryKey: ['a'], queryFn: async () => 'fetched' })).toBe('fetched')
  })
})

describe('query storage and serializer', () => {
  it('keeps bytes, not strings, and lists only its prefix', async () => {
    const storage = createQueryStorage({ dbName: dbName(), prefix: 'p' })
    await storage.setItem('p-a', new Uint8Array([1]))
    await storage.setItem('q-b', new Uint8Array([2]))
    expect(await storage.getItem('p-a')).toStrictEqual(new Uint8Array([1]))
    expect(await storage.getItem('missing')).toBeNull()
    expect(await storage.entries()).toStrictEqual([['p-a', new Uint8Array([1])]])
    await storage.removeItem('p-a')
    expect(await storage.getItem('p-a')).toBeNull()
  })

  it('leaves errors out of the stored state', () => {
    const { serialize, deserialize } = createQuerySerializer()
    const state = { data: 1, error: new Error('boom'), fetchFailureReason: new Error('boom'), dataUpdatedAt: 1, status: 'success' }
    const back = deserialize(serialize({ buster: '', queryHash: 'h', queryKey: ['h'], state } as never))
    expect(back.state.data).toBe(1)
    expect(back.state.error).toBeNull()
  })

  it('throws typed errors for data no envelope holds', () => {
    const { serialize } = createQuerySerializer()
    expect(() => serialize({ buster: '', queryHash: 'h', queryKey: ['h'], state: { data: () => {} } } as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.UNSUPPORTED_TYPE }))
  })
})
