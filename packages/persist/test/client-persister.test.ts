import { createCodec, inspect, StowageError, StowageErrorCode, type AsyncEncodeOptions, type Codec, type EnvelopeMeta } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClient, persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it } from 'vitest'
import { createQueryStorage, createStowageClientPersister, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { createStowageStorage } from '../src/zustand/index.js'
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

  it('packs the queries into a few segments and a small manifest, never one record per query', async () => {
    const store = recordingStore()
    const qc = client()
    for (let i = 0; i < 50; i++) qc.setQueryData(['item', i], { i, text: 'x'.repeat(200) })
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: qc, persister })
    const keys = await keysOf(store)
    expect(keys).toHaveLength(2)
    expect(keys).toContain('tanstack-query-client:manifest')
    const manifest = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
    expect(manifest.segments).toHaveLength(1)
    expect(createCodec().decode<Uint8Array[]>((await store.get(`tanstack-query-client:s:${manifest.segments[0]}`))!)).toHaveLength(50)
  })

  it('cuts segments at about segmentBytes of MessagePack', async () => {
    const store = recordingStore()
    const qc = client()
    for (let i = 0; i < 50; i++) qc.setQueryData(['item', i], { i, text: 'x'.repeat(200) })
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ store, throttleTime: 0, segmentBytes: 2500 }) })
    const manifest = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
    expect(manifest.segments.length).toBeGreaterThanOrEqual(5)
    expect(await keysOf(store, 'tanstack-query-client:s:')).toHaveLength(manifest.segments.length)
    // Sized from the first save on: every segment but the last holds about 2,500 bytes of MessagePack.
    const sizes = await Promise.all(manifest.segments.map(async (id) => inspect((await store.get(`tanstack-query-client:s:${id}`))!).payloadLength))
    for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThan(1250)
    for (const size of sizes) expect(size).toBeLessThan(5000)
  })

  it("a page's first save starts with smaller segments, doubling from 64 KiB up to segmentBytes; a later save cuts full ones", async () => {
    const store = recordingStore()
    const qc = client()
    // ~1,000 bytes of MessagePack a query, 3 MB in all: distinct strings, so nothing shrinks them.
    for (let i = 0; i < 3000; i++) qc.setQueryData(['item', i], { i, text: `${i}:`.padEnd(1000, String.fromCharCode(97 + (i % 26))) })
    // sliceMs: long enough that no segment is cut for the time its encode takes (the next test).
    const persister = createStowageClientPersister({ store, throttleTime: 0, segmentBytes: 512 * 1024, sliceMs: 1000, codec: { compress: 'never' } })
    const sizes = async () => {
      const manifest = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
      return Promise.all(manifest.segments.map(async (id) => inspect((await store.get(`tanstack-query-client:s:${id}`))!).payloadLength))
    }
    await persistQueryClientSave({ queryClient: qc, persister })
    const first = await sizes()
    const kib = (n: number) => n / 1024
    expect(kib(first[0]!)).toBeGreaterThan(48)
    expect(kib(first[0]!)).toBeLessThan(80)
    expect(first[1]!).toBeGreaterThan(1.6 * first[0]!)
    expect(first[2]!).toBeGreaterThan(1.6 * first[1]!)
    expect(first[3]!).toBeGreaterThan(1.6 * first[2]!)
    for (const size of first) expect(kib(size)).toBeLessThan(600)

    // A later save in the same page knows the queries' size: its new segments start full.
    for (let i = 3000; i < 4000; i++) qc.setQueryData(['item', i], { i, text: `${i}:`.padEnd(1000, 'z') })
    await persistQueryClientSave({ queryClient: qc, persister })
    const added = (await sizes()).slice(first.length)
    expect(kib(added[0]!)).toBeGreaterThan(400)
  })

  it('sizes each segment so that its encode takes about twice sliceMs, at the speed of the segment before, never under 64 KiB', async () => {
    const store = recordingStore()
    const qc = client()
    // ~1,000 bytes of MessagePack a query, 3 MB in all.
    for (let i = 0; i < 3000; i++) qc.setQueryData(['item', i], { i, text: `${i}:`.padEnd(1000, String.fromCharCode(97 + (i % 26))) })
    // An encoder that takes at least 0.05 ms a query: at most ~20,000 bytes a ms, so a 16 ms
    // segment holds at most ~320 KiB where segmentBytes would take 512.
    const base = createCodec({ compress: 'never' })
    const slow: Codec = Object.assign(Object.create(base) as Codec, {
      encodeEnvelopeAsync: (value: unknown, meta?: EnvelopeMeta, options?: AsyncEncodeOptions) => {
        const until = performance.now() + 0.05 * (Array.isArray(value) ? value.length : 1)
        while (performance.now() < until) {
          // busy, as a cold encoder is
        }
        return base.encodeEnvelopeAsync(value, meta, options)
      },
    })
    const persister = createStowageClientPersister({ store, throttleTime: 0, segmentBytes: 512 * 1024, sliceMs: 8, codec: slow })
    await persistQueryClientSave({ queryClient: qc, persister })
    const manifest = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
    const sizes = await Promise.all(manifest.segments.map(async (id) => inspect((await store.get(`tanstack-query-client:s:${id}`))!).payloadLength / 1024))
    // Past the ramp's first segments (64, 128, 256 KiB), none reaches 512 KiB, and none is under 64.
    expect(sizes.length).toBeGreaterThan(8)
    for (const kib of sizes.slice(3, -1)) {
      expect(kib).toBeLessThan(400)
      expect(kib).toBeGreaterThan(56)
    }
    expect((await persister.restoreClient())?.clientState.queries).toHaveLength(3000)
  })

  it('a change to one query encodes again only the segment that holds it, and rewrites only that segment', async () => {
    const store = recordingStore()
    const encoded: unknown[] = []
    const base = createCodec({ compressThreshold: 1024 })
    const codec: Codec = Object.assign(Object.create(base) as Codec, {
      encodeEnvelopeAsync: (value: unknown) => (encoded.push(value), base.encodeEnvelopeAsync(value)),
    })
    const qc = client()
    for (let i = 0; i < 40; i++) qc.setQueryData(['item', i], { i, text: String(i).padStart(300, 'y') })
    const persister = createStowageClientPersister({ store, throttleTime: 0, segmentBytes: 4000, codec })
    await persistQueryClientSave({ queryClient: qc, persister })
    const before = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!).segments
    expect(before.length).toBeGreaterThan(3)
    store.writes.length = 0
    store.deletes.length = 0
    encoded.length = 0

    qc.setQueryData(['item', 3], { i: 33 })
    await persistQueryClientSave({ queryClient: qc, persister })
    const after = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!).segments
    const added = after.filter((id) => !before.includes(id))
    const dropped = before.filter((id) => !after.includes(id))
    expect(added).toHaveLength(1)
    expect(dropped).toHaveLength(1)
    // One segment encoded again: the queries of the one that held item 3, item 3 among them.
    const segmentsEncoded = encoded.filter(Array.isArray) as Array<Array<{ queryHash: string }>>
    expect(segmentsEncoded).toHaveLength(1)
    const oldMembers = createCodec().decode<Array<{ queryHash: string }>>((await store.get(`tanstack-query-client:s:${added[0]}`))!).map((q) => q.queryHash)
    expect(segmentsEncoded[0]!.map((q) => q.queryHash)).toStrictEqual(oldMembers)
    expect(oldMembers).toContain('["item",3]')
    expect(oldMembers.length).toBeLessThan(40)
    expect(store.writes).toStrictEqual([[`tanstack-query-client:s:${added[0]}`], ['tanstack-query-client:manifest']])
    expect(store.deletes.flat()).toContain(`tanstack-query-client:s:${dropped[0]}`)
    store.writes.length = 0

    await persistQueryClientSave({ queryClient: qc, persister })
    expect(store.writes).toStrictEqual([['tanstack-query-client:manifest']])
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryCache().getAll()).toHaveLength(40)
    expect(again.getQueryData(['item', 3])).toStrictEqual({ i: 33 })
    expect(again.getQueryData(['item', 39])).toStrictEqual({ i: 39, text: '39'.padStart(300, 'y') })
  })

  it('restores a client that layout 1 saved (a record per query in each segment) and keeps its unchanged segments', async () => {
    const store = recordingStore()
    const codec = createCodec({ compressThreshold: 1024 })
    const record = createCodec({ compressThreshold: 1024, compress: 'never' })
    const state = (i: number) => ({ data: { i }, dataUpdateCount: 1, dataUpdatedAt: 1000 + i, error: null, errorUpdateCount: 0, errorUpdatedAt: 0, fetchFailureCount: 0, fetchFailureReason: null, fetchMeta: null, isInvalidated: false, status: 'success', fetchStatus: 'idle' })
    const query = (i: number) => ({ queryKey: ['old', i], queryHash: JSON.stringify(['old', i]), state: state(i) })
    await store.set('tanstack-query-client:s:a', codec.encode([0, 1, 2].map((i) => record.encode(query(i)))))
    await store.set('tanstack-query-client:s:b', codec.encode([3, 4].map((i) => record.encode(query(i)))))
    await store.set('tanstack-query-client:manifest', codec.encode({ layout: 1, save: 'old', timestamp: Date.now(), buster: '', mutations: [], segments: ['a', 'b'] }))

    const qc = client()
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientRestore({ queryClient: qc, persister })
    expect(qc.getQueryCache().getAll()).toHaveLength(5)
    expect(qc.getQueryData(['old', 4])).toStrictEqual({ i: 4 })

    qc.setQueryData(['old', 4], { i: 44 })
    await persistQueryClientSave({ queryClient: qc, persister })
    const manifest = codec.decode<{ layout: number; segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
    expect(manifest.layout).toBe(2)
    expect(manifest.segments).toContain('a') // unchanged: still layout 1's records
    expect(manifest.segments).not.toContain('b')
    expect(await store.get('tanstack-query-client:s:b')).toBeUndefined()

    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryCache().getAll()).toHaveLength(5)
    expect(again.getQueryData(['old', 0])).toStrictEqual({ i: 0 })
    expect(again.getQueryData(['old', 4])).toStrictEqual({ i: 44 })
  })

  it('finds a query no envelope holds in a segment of many by halving it, and stores the rest of that segment', async () => {
    const store = recordingStore()
    const errors: StowageError[] = []
    const qc = client()
    for (let i = 0; i < 30; i++) qc.setQueryData(['item', i], i === 17 ? { bad: () => 1 } : { i })
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ store, throttleTime: 0, onError: (e) => errors.push(e) }) })
    expect(errors.map((e) => e.code)).toStrictEqual([StowageErrorCode.UNSUPPORTED_TYPE])
    expect(errors[0]!.message).toContain('["item",17]')
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryCache().getAll()).toHaveLength(29)
    expect(again.getQueryData(['item', 16])).toStrictEqual({ i: 16 })
    expect(again.getQueryData(['item', 17])).toBeUndefined()
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
    expect(store.writes).toStrictEqual([['tanstack-query-client:manifest']])
  })

  it('rewrites the segment of a query removed from the cache without it', async () => {
    const store = recordingStore()
    const qc = client()
    qc.setQueryData(['a'], 1)
    qc.setQueryData(['b'], 2)
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: qc, persister })
    qc.removeQueries({ queryKey: ['a'] })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(await keysOf(store)).toHaveLength(2) // the manifest and one segment
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryData(['a'])).toBeUndefined()
    expect(again.getQueryData(['b'])).toBe(2)
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
    expect(await keysOf(store)).toHaveLength(2)
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryData(['old'])).toBeUndefined()
    expect(again.getQueryData(['new'])).toBe(2)
  })

  it('ignores the per-query records of @stowage/persist 0.2 and deletes them with its first save', async () => {
    const store = createIdbStore({ dbName: dbName() })
    const codec = createCodec()
    await store.set('tanstack-query-client:index', codec.encode({ timestamp: Date.now(), buster: '', hashes: ['["old"]'], mutations: [] }))
    await store.set('tanstack-query-client:q:["old"]', codec.encode({ queryHash: '["old"]', queryKey: ['old'], state: { data: 1, dataUpdatedAt: 1, errorUpdatedAt: 0, status: 'success' } }))
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    const qc = client()
    await persistQueryClientRestore({ queryClient: qc, persister })
    expect(qc.getQueryCache().getAll()).toHaveLength(0)
    qc.setQueryData(['new'], 2)
    await persistQueryClientSave({ queryClient: qc, persister })
    const keys = await keysOf(store)
    expect(keys.filter((k) => k.includes(':index') || k.includes(':q:'))).toStrictEqual([])
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

  it('cuts a large save into several segment writes, the manifest last', async () => {
    const store = recordingStore()
    const qc = client()
    const text = 'lorem ipsum '.repeat(2000)
    for (let i = 0; i < 200; i++) qc.setQueryData(['post', i], { i, text })
    const persister = createStowageClientPersister({ store, throttleTime: 0, sliceMs: 0.001, segmentBytes: 100_000 })
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(store.writes.length).toBeGreaterThan(10)
    expect(store.writes.at(-1)).toStrictEqual(['tanstack-query-client:manifest'])
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryCache().getAll()).toHaveLength(200)
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
    // TanStack removes it: only the removal record is left, which holds an id and nothing of the client.
    expect(await keysOf(store)).toStrictEqual(['tanstack-query-client:removed'])
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
    expect(store.writes.flat().filter((k) => k.endsWith(':manifest'))).toHaveLength(1)
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryData(['n'])).toBe(19)
  })

  it('leaves out a damaged segment, restores the others, and deletes it with the next save', async () => {
    const name = dbName()
    const qc = client()
    qc.setQueryData(['good'], 'fine'.repeat(100))
    qc.setQueryData(['bad'], 'lost'.repeat(100))
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0, segmentBytes: 100 }) })
    const store = createIdbStore({ dbName: name })
    const { segments } = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
    expect(segments).toHaveLength(2)
    const badKey = `tanstack-query-client:s:${segments[1]}`
    const bytes = (await store.get(badKey))!
    bytes[bytes.length - 1]! ^= 0xff
    await store.set(badKey, bytes)
    const second = client()
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientRestore({ queryClient: second, persister })
    expect(second.getQueryData(['good'])).toBe('fine'.repeat(100))
    expect(second.getQueryData(['bad'])).toBeUndefined()
    await persistQueryClientSave({ queryClient: second, persister })
    expect(await store.get(badKey)).toBeUndefined()
  })

  it('restores many deflated segments in their saved order while it inflates ahead, leaving out a damaged and a missing one', async () => {
    const name = dbName()
    const qc = client()
    for (let i = 0; i < 40; i++) qc.setQueryData(['post', i], { i, text: `post ${i}: ${'lorem ipsum '.repeat(300)}` })
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0, segmentBytes: 8000 }) })
    const store = createIdbStore({ dbName: name })
    const { segments } = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
    expect(segments.length).toBeGreaterThanOrEqual(10)
    const segmentKey = (id: string) => `tanstack-query-client:s:${id}`
    // Deflated, so that a browser's restore inflates them in its worker.
    for (const id of segments) expect(inspect((await store.get(segmentKey(id)))!).compression).toBe('deflate-raw')
    const damaged = (await store.get(segmentKey(segments[3]!)))!
    damaged[damaged.length - 1]! ^= 0xff
    await store.set(segmentKey(segments[3]!), damaged)
    await store.delete(segmentKey(segments[6]!))
    // What each remaining segment holds, read one by one in the manifest's order.
    const expected: string[] = []
    for (const [n, id] of segments.entries()) {
      if (n === 3 || n === 6) continue
      for (const query of createCodec().decode<Array<{ queryHash: string }>>((await store.get(segmentKey(id)))!)) expected.push(query.queryHash)
    }
    const restored = await createStowageClientPersister({ store }).restoreClient()
    expect(restored!.clientState.queries.map((q) => q.queryHash)).toStrictEqual(expected)
    expect(expected.length).toBeGreaterThan(20)
    expect(expected.length).toBeLessThan(40)
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryData(['post', 39])).toStrictEqual({ i: 39, text: `post 39: ${'lorem ipsum '.repeat(300)}` })
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
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryCache().getAll().map((q) => q.queryHash)).toStrictEqual(['["ok"]'])
  })

  it("leaves the quota to the store: its byte budget evicts, and what cannot fit reaches onError as LIMIT_EXCEEDED", async () => {
    const errors: StowageError[] = []
    const store = createIdbStore({ dbName: dbName(), maxBytes: 4000 })
    const evicted: string[] = []
    store.on('evict', (e) => evicted.push(...e.keys))
    const qc = client()
    // A segment per row (segmentBytes below one row), so that the budget evicts single rows.
    const persister = createStowageClientPersister({ store, throttleTime: 0, segmentBytes: 400, onError: (e) => errors.push(e) })
    const rows = Array.from({ length: 10 }, () => crypto.getRandomValues(new Uint8Array(500)))
    for (let i = 0; i < 10; i++) {
      qc.setQueryData(['row', i], rows[i])
      await persistQueryClientSave({ queryClient: qc, persister })
    }
    expect(errors).toStrictEqual([])
    expect(evicted.some((key) => key.startsWith('tanstack-query-client:s:'))).toBe(true)
    expect(await store.byteSize()).toBeLessThanOrEqual(4000)
    // What the store evicted is left out of a restore; the newest queries come back.
    const restored = client()
    await persistQueryClientRestore({ queryClient: restored, persister: createStowageClientPersister({ store }) })
    expect(restored.getQueryData(['row', 0])).toBeUndefined()
    expect(restored.getQueryData(['row', 9])).toStrictEqual(rows[9])
    qc.setQueryData(['huge'], crypto.getRandomValues(new Uint8Array(10_000)))
    await persistQueryClientSave({ queryClient: qc, persister })
    expect(errors.map((e) => e.code)).toStrictEqual([StowageErrorCode.LIMIT_EXCEEDED])
  })

  it('removeClient deletes the manifest and every segment, and leaves a removal record of an id only', async () => {
    const store = createIdbStore({ dbName: dbName() })
    await store.set('other', new Uint8Array([1]))
    const qc = client()
    qc.setQueryData(['a'], 1)
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientSave({ queryClient: qc, persister })
    await persister.removeClient()
    expect(await keysOf(store)).toStrictEqual(['other', 'tanstack-query-client:removed'])
    expect(typeof createCodec().decode((await store.get('tanstack-query-client:removed'))!)).toBe('string')
    expect(await persister.restoreClient()).toBeUndefined()
  })

  it('refuses bad options with INVALID_ARGUMENT', () => {
    for (const bad of [{ key: '' }, { throttleTime: -1 }, { sliceMs: 0 }, { segmentBytes: 0 }]) {
      expect(() => createStowageClientPersister(bad)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT }))
    }
    // A misspelt option is refused: a misspelt dbName would persist into the origin's default database.
    expect(() => createStowageClientPersister({ dbname: 'mine' } as never)).toThrow('unknown createStowageClientPersister option "dbname" (did you mean dbName?)')
    expect(() => createStowageQueryPersister({ maxage: 10 } as never)).toThrow('unknown createStowageQueryPersister option "maxage" (did you mean maxAge?)')
    expect(() => createQueryStorage({ prefx: 'q' } as never)).toThrow('unknown createQueryStorage option "prefx" (did you mean prefix?)')
    expect(() => createStowageStorage({ dbNmae: 'z' } as never)).toThrow('unknown createStowageStorage option "dbNmae" (did you mean dbName?)')
  })
})
