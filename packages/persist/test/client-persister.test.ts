import { createCodec, StowageError, StowageErrorCode } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClient, persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it } from 'vitest'
import { createStowageClientPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, recordingStore, richData } from './helpers.js'

const client = () => new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })

describe('whole-client persister', () => {
  it('restores every query into a new client, rich types intact', async () => {
    const name = dbName()
    const first = client()
    first.setQueryData(['user', 1], richData(1))
    first.setQueryData(['user', 2], richData(2))
    const persister = createStowageClientPersister({ dbName: name, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: first, persister })

    const second = client()
    const [unsubscribe, restored] = persistQueryClient({ queryClient: second, persister: createStowageClientPersister({ dbName: name }) })
    await restored
    unsubscribe()
    expect(second.getQueryData(['user', 1])).toStrictEqual(richData(1))
    expect(second.getQueryData(['user', 2])).toStrictEqual(richData(2))
    const data = second.getQueryData<ReturnType<typeof richData>>(['user', 2])!
    expect(data.createdAt).toBeInstanceOf(Date)
    expect(data.byUser).toBeInstanceOf(Map)
    expect(typeof data.id).toBe('bigint')
  })

  it('stores one envelope per query and a small index, never one blob', async () => {
    const store = recordingStore()
    const qc = client()
    for (let i = 0; i < 50; i++) qc.setQueryData(['item', i], { i, text: 'x'.repeat(200) })
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: qc, persister })
    const keys = await keysOf(store)
    expect(keys).toHaveLength(51)
    expect(keys).toContain('tanstack-query-client:index')
    const values = await store.getMany!(keys)
    for (const value of values) expect(value!.length).toBeLessThan(1000)
    expect(createCodec().decode<{ hashes: string[] }>((await store.get('tanstack-query-client:index'))!).hashes).toHaveLength(50)
  })

  it('writes only the queries that changed since its last write', async () => {
    const store = recordingStore()
    const qc = client()
    for (let i = 0; i < 10; i++) qc.setQueryData(['item', i], { i })
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(store.writes.flat()).toHaveLength(11)
    store.writes.length = 0

    qc.setQueryData(['item', 3], { i: 33 })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(store.writes.flat()).toStrictEqual(['tanstack-query-client:q:["item",3]', 'tanstack-query-client:index'])
    store.writes.length = 0

    await persistQueryClientSave({ queryClient: qc, persister })
    expect(store.writes.flat()).toStrictEqual(['tanstack-query-client:index'])
  })

  it('does not write restored queries again until they change', async () => {
    const name = dbName()
    const qc = client()
    for (let i = 0; i < 5; i++) qc.setQueryData(['item', i], { i })
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })

    const store = recordingStore(name)
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    const second = client()
    await persistQueryClientRestore({ queryClient: second, persister })
    await persistQueryClientSave({ queryClient: second, persister })
    expect(store.writes.flat()).toStrictEqual(['tanstack-query-client:index'])
  })

  it('deletes the entries of queries removed from the cache', async () => {
    const store = recordingStore()
    const qc = client()
    qc.setQueryData(['a'], 1)
    qc.setQueryData(['b'], 2)
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: qc, persister })
    qc.removeQueries({ queryKey: ['a'] })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(await keysOf(store)).toStrictEqual(['tanstack-query-client:index', 'tanstack-query-client:q:["b"]'])
  })

  it('deletes what an earlier page stored when it saves without restoring first', async () => {
    const name = dbName()
    const old = client()
    old.setQueryData(['old'], 1)
    await persistQueryClientSave({ queryClient: old, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
    const fresh = client()
    fresh.setQueryData(['new'], 2)
    const store = createIdbStore({ dbName: name })
    await persistQueryClientSave({ queryClient: fresh, persister: createStowageClientPersister({ store, throttleTime: 0 }) })
    expect(await keysOf(store)).toStrictEqual(['tanstack-query-client:index', 'tanstack-query-client:q:["new"]'])
  })

  it('restores a client larger than one read batch', async () => {
    const name = dbName()
    const qc = client()
    for (let i = 0; i < 620; i++) qc.setQueryData(['n', i], { i, at: new Date(i) })
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
    const second = client()
    await persistQueryClientRestore({ queryClient: second, persister: createStowageClientPersister({ dbName: name }) })
    expect(second.getQueryCache().getAll()).toHaveLength(620)
    expect(second.getQueryData(['n', 619])).toStrictEqual({ i: 619, at: new Date(619) })
  })

  it('cuts a large save into several batches', async () => {
    const store = recordingStore()
    const qc = client()
    const text = 'lorem ipsum '.repeat(2000)
    for (let i = 0; i < 200; i++) qc.setQueryData(['post', i], { i, text })
    const persister = createStowageClientPersister({ store, throttleTime: 0, sliceMs: 0.001 })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(store.writes.length).toBeGreaterThan(10)
    expect(store.writes.flat()).toHaveLength(201)
  })

  it('discards the persisted client when the buster differs', async () => {
    const name = dbName()
    const qc = client()
    qc.setQueryData(['a'], 1)
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }), buster: 'v1' })
    const second = client()
    const store = createIdbStore({ dbName: name })
    await persistQueryClientRestore({ queryClient: second, persister: createStowageClientPersister({ store }), buster: 'v2' })
    expect(second.getQueryData(['a'])).toBeUndefined()
    expect(await keysOf(store)).toStrictEqual([])
  })

  it('discards the persisted client when it is older than maxAge', async () => {
    const name = dbName()
    const qc = client()
    qc.setQueryData(['a'], 1)
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
    await new Promise((r) => setTimeout(r, 30))
    const second = client()
    await persistQueryClientRestore({ queryClient: second, persister: createStowageClientPersister({ dbName: name }), maxAge: 10 })
    expect(second.getQueryData(['a'])).toBeUndefined()
    const third = client()
    await persistQueryClientRestore({ queryClient: third, persister: createStowageClientPersister({ dbName: name }) })
    expect(third.getQueryData(['a'])).toBeUndefined() // removed, not just skipped
  })

  it('waits for the throttle time and writes the latest state once', async () => {
    const store = recordingStore()
    const qc = client()
    const persister = createStowageClientPersister({ store, throttleTime: 50 })
    const [unsubscribe, restored] = persistQueryClient({ queryClient: qc, persister })
    await restored
    for (let i = 0; i < 20; i++) qc.setQueryData(['n'], i)
    expect(store.writes).toHaveLength(0)
    await new Promise((r) => setTimeout(r, 20))
    expect(store.writes).toHaveLength(0)
    await persister.flush()
    unsubscribe()
    expect(store.writes).toHaveLength(1)
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryData(['n'])).toBe(19)
  })

  it('leaves out a damaged query, deletes it, and restores the others', async () => {
    const name = dbName()
    const qc = client()
    qc.setQueryData(['good'], 'fine')
    qc.setQueryData(['bad'], 'lost')
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
    const store = createIdbStore({ dbName: name })
    const bytes = (await store.get('tanstack-query-client:q:["bad"]'))!
    bytes[bytes.length - 1]! ^= 0xff
    await store.set('tanstack-query-client:q:["bad"]', bytes)
    const second = client()
    await persistQueryClientRestore({ queryClient: second, persister: createStowageClientPersister({ store }) })
    expect(second.getQueryData(['good'])).toBe('fine')
    expect(second.getQueryData(['bad'])).toBeUndefined()
    expect(await store.get('tanstack-query-client:q:["bad"]')).toBeUndefined()
  })

  it('reports a query no envelope can hold as UNSUPPORTED_TYPE and writes the others', async () => {
    const errors: StowageError[] = []
    const store = recordingStore()
    const qc = client()
    qc.setQueryData(['ok'], 1)
    qc.setQueryData(['fn'], { onClick: () => {} })
    const persister = createStowageClientPersister({ store, throttleTime: 0, onError: (e) => errors.push(e) })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(errors).toHaveLength(1)
    expect(StowageError.isInstance(errors[0])).toBe(true)
    expect(errors[0]!.code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    expect(errors[0]!.message).toContain('["fn"]')
    expect(await keysOf(store)).toStrictEqual(['tanstack-query-client:index', 'tanstack-query-client:q:["ok"]'])
  })

  it("leaves the quota to the store: its byte budget evicts, and what cannot fit reaches onError as LIMIT_EXCEEDED", async () => {
    const errors: StowageError[] = []
    const store = createIdbStore({ dbName: dbName(), maxBytes: 4000 })
    const evicted: string[] = []
    store.on('evict', (e) => evicted.push(...e.keys))
    const qc = client()
    const persister = createStowageClientPersister({ store, throttleTime: 0, onError: (e) => errors.push(e) })
    for (let i = 0; i < 10; i++) {
      qc.setQueryData(['row', i], `${i}`.repeat(500))
      await persistQueryClientSave({ queryClient: qc, persister })
    }
    expect(errors).toStrictEqual([])
    expect(evicted).toContain('tanstack-query-client:q:["row",0]')
    expect(await store.byteSize()).toBeLessThanOrEqual(4000)
    // What the store evicted is left out of a restore; the newest queries come back.
    const restored = client()
    await persistQueryClientRestore({ queryClient: restored, persister: createStowageClientPersister({ store }) })
    expect(restored.getQueryData(['row', 0])).toBeUndefined()
    expect(restored.getQueryData(['row', 9])).toBe('9'.repeat(500))
    qc.setQueryData(['huge'], crypto.getRandomValues(new Uint8Array(10_000)))
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(errors.map((e) => e.code)).toStrictEqual([StowageErrorCode.LIMIT_EXCEEDED])
  })

  it('removeClient deletes the index and every query', async () => {
    const store = createIdbStore({ dbName: dbName() })
    await store.set('other', new Uint8Array([1]))
    const qc = client()
    qc.setQueryData(['a'], 1)
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: qc, persister })
    await persister.removeClient()
    expect(await keysOf(store)).toStrictEqual(['other'])
    expect(await persister.restoreClient()).toBeUndefined()
  })

  it('refuses bad options with INVALID_ARGUMENT', () => {
    for (const bad of [{ key: '' }, { throttleTime: -1 }, { sliceMs: 0 }]) {
      expect(() => createStowageClientPersister(bad)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
    }
  })
})
