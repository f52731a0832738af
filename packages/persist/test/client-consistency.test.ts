// Issue #20 items 14 and 15: a restore sees one consistent save, and one wrong record never costs
// more than itself.
import { createCodec } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it } from 'vitest'
import { createStowageClientPersister } from '../src/tanstack-query/index.js'
import { dbName, interruptedStore, keysOf, savedItems } from './helpers.js'

const client = () => new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
const QUERIES = 120

function filled(version: string): QueryClient {
  const qc = client()
  for (let i = 0; i < QUERIES; i++) qc.setQueryData(['item', i], { version, i, text: `${version} `.repeat(100) })
  return qc
}

/** How many queries of each version a new page restores from `name`. */
async function versionsIn(name: string): Promise<Record<string, number>> {
  const qc = client()
  await persistQueryClientRestore({ queryClient: qc, persister: createStowageClientPersister({ dbName: name }) })
  const counts: Record<string, number> = {}
  for (const query of qc.getQueryCache().getAll()) {
    const { version } = query.state.data as { version: string }
    counts[version] = (counts[version] ?? 0) + 1
  }
  return counts
}

// Small segments and slices, so that a save is many writes and can be cut anywhere.
const options = { throttleTime: 0, segmentBytes: 2000, sliceMs: 0.001 }

describe('a save left midway (#20-15)', () => {
  for (const mode of ['fail', 'stall'] as const) {
    for (const afterWrites of [0, 1, 5, 12]) {
      it(`restores all of the previous save when the writes ${mode === 'fail' ? 'fail' : 'never end'} after ${afterWrites}`, async () => {
        const name = dbName()
        await persistQueryClientSave({ queryClient: filled('v1'), persister: createStowageClientPersister({ dbName: name, ...options }) })
        const cut = interruptedStore(createIdbStore({ dbName: name }), afterWrites, mode)
        const saving = persistQueryClientSave({ queryClient: filled('v2'), persister: createStowageClientPersister({ store: cut, ...options, onError: () => {} }) })
        if (mode === 'fail') await saving
        // Not a fixed wait: on a loaded machine the save may not have reached its cut yet, and would
        // stall after abandon(), holding the page lock every later save of this file waits for.
        else await Promise.race([cut.stalled, saving.then(() => expect.fail(`the save ended before write ${afterWrites + 1}`))])
        expect(await versionsIn(name)).toStrictEqual({ v1: QUERIES })
        cut.abandon()
        await saving
      })
    }
  }

  it('restores nothing when the first save ever is left midway, all of it once it ends', async () => {
    const name = dbName()
    const cut = interruptedStore(createIdbStore({ dbName: name }), 5, 'fail')
    await persistQueryClientSave({ queryClient: filled('v1'), persister: createStowageClientPersister({ store: cut, ...options, onError: () => {} }) })
    expect(await versionsIn(name)).toStrictEqual({})
    await persistQueryClientSave({ queryClient: filled('v1'), persister: createStowageClientPersister({ dbName: name, ...options }) })
    expect(await versionsIn(name)).toStrictEqual({ v1: QUERIES })
  })

  it('deletes what a save left midway had written, with the next save of a new page', async () => {
    const name = dbName()
    await persistQueryClientSave({ queryClient: filled('v1'), persister: createStowageClientPersister({ dbName: name, ...options }) })
    const cut = interruptedStore(createIdbStore({ dbName: name }), 8, 'fail')
    await persistQueryClientSave({ queryClient: filled('v2'), persister: createStowageClientPersister({ store: cut, ...options, onError: () => {} }) })
    const store = createIdbStore({ dbName: name })
    const persister = createStowageClientPersister({ store, ...options })
    const qc = client()
    await persistQueryClientRestore({ queryClient: qc, persister })
    qc.setQueryData(['item', 0], { version: 'v3', i: 0, text: '' })
    await persistQueryClientSave({ queryClient: qc, persister })
    const { segments } = createCodec().decode<{ segments: string[] }>((await store.get('tanstack-query-client:manifest'))!)
    expect(await keysOf(store, 'tanstack-query-client:s:')).toStrictEqual(segments.map((id) => `tanstack-query-client:s:${id}`).sort())
    expect(await versionsIn(name)).toStrictEqual({ v1: QUERIES - 1, v3: 1 })
  })
})

describe('two pages saving the same client', () => {
  it('restore the last save whole, though the other page replaced the segments the first one kept', async () => {
    const name = dbName()
    await persistQueryClientSave({ queryClient: filled('v1'), persister: createStowageClientPersister({ dbName: name, ...options }) })
    const pages = [0, 1].map(() => ({ qc: client(), persister: createStowageClientPersister({ dbName: name, ...options }) }))
    for (const { qc, persister } of pages) await persistQueryClientRestore({ queryClient: qc, persister })
    // Each page changes one query: each save alone would rewrite one segment and keep the others.
    pages[0]!.qc.setQueryData(['item', 0], { version: 'a', i: 0, text: '' })
    await persistQueryClientSave({ queryClient: pages[0]!.qc, persister: pages[0]!.persister })
    pages[1]!.qc.setQueryData(['item', QUERIES - 1], { version: 'b', i: QUERIES - 1, text: '' })
    await persistQueryClientSave({ queryClient: pages[1]!.qc, persister: pages[1]!.persister })
    expect(await versionsIn(name)).toStrictEqual({ v1: QUERIES - 1, b: 1 })
    pages[0]!.qc.setQueryData(['item', 1], { version: 'a', i: 1, text: '' })
    await persistQueryClientSave({ queryClient: pages[0]!.qc, persister: pages[0]!.persister })
    expect(await versionsIn(name)).toStrictEqual({ v1: QUERIES - 2, a: 2 })
  })
})

describe('a decodable record that is not a query (#20-14)', () => {
  it('is left out alone: the other queries are restored and the persisted client is kept', async () => {
    const name = dbName()
    const qc = client()
    for (let i = 0; i < 50; i++) qc.setQueryData(['item', i], { i })
    // One record per query in either layout (segments smaller than one query record).
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0, segmentBytes: 1 }) })
    const store = createIdbStore({ dbName: name })
    const records = (await keysOf(store)).filter((key) => !/:(index|manifest)$/.test(key))
    expect(records).toHaveLength(50)
    await store.set(records[7]!, createCodec().encode({}))

    const restored = client()
    await persistQueryClientRestore({ queryClient: restored, persister: createStowageClientPersister({ store }) })
    expect(restored.getQueryCache().getAll()).toHaveLength(49)
    expect((await keysOf(store)).length).toBeGreaterThanOrEqual(50)
  })

  it('inside a segment is left out alone, and the next save rewrites that segment without it', async () => {
    const { store, codec, firstSegment: key } = await savedItems(30)
    const records = codec.decode<Uint8Array[]>((await store.get(key))!)
    const bad = [codec.encode({}), codec.encode({ queryHash: 'h', queryKey: 'not an array', state: {} }), codec.encode({ queryHash: 'x', queryKey: ['x'], state: { status: 'weird', dataUpdatedAt: 0, errorUpdatedAt: 0 } })]
    records.splice(3, 3, ...bad)
    await store.set(key, codec.encode(records))

    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    const restored = client()
    await persistQueryClientRestore({ queryClient: restored, persister })
    expect(restored.getQueryCache().getAll()).toHaveLength(27)
    expect(restored.getQueryData(['item', 29])).toStrictEqual({ i: 29 })
    await persistQueryClientSave({ queryClient: restored, persister })
    expect(await store.get(key)).toBeUndefined()
    const again = client()
    await persistQueryClientRestore({ queryClient: again, persister: createStowageClientPersister({ store }) })
    expect(again.getQueryCache().getAll()).toHaveLength(27)
  })

  it('a mutation hydrate could not take is left out, the queries restored', async () => {
    const name = dbName()
    const qc = client()
    qc.setQueryData(['a'], 1)
    await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
    const store = createIdbStore({ dbName: name })
    const codec = createCodec()
    const manifest = codec.decode<Record<string, unknown>>((await store.get('tanstack-query-client:manifest'))!)
    await store.set('tanstack-query-client:manifest', codec.encode({ ...manifest, mutations: [{}, 'x'] }))
    const restored = client()
    await persistQueryClientRestore({ queryClient: restored, persister: createStowageClientPersister({ store }) })
    expect(restored.getQueryData(['a'])).toBe(1)
  })
})

describe('a restore while another page saves', () => {
  it('reads again when the manifest switched between its reads, and restores the new save whole', async () => {
    const name = dbName()
    await persistQueryClientSave({ queryClient: filled('v1'), persister: createStowageClientPersister({ dbName: name, ...options }) })
    const other = { qc: client(), persister: createStowageClientPersister({ dbName: name, ...options }) }
    await persistQueryClientRestore({ queryClient: other.qc, persister: other.persister })
    const inner = createIdbStore({ dbName: name })
    let first = true
    // Between the restore's read of the manifest and its read of the segments, the other page saves
    // every query anew: the manifest switches and the segments it listed are deleted.
    const store = {
      name: 'racing',
      get: (k: string) => inner.get(k),
      set: () => Promise.reject(new Error('the restoring page does not write')),
      delete: () => Promise.reject(new Error('the restoring page does not write')),
      getMany: async (keys: readonly string[]) => {
        if (first && keys.some((k) => k.includes(':s:'))) {
          first = false
          for (let i = 0; i < QUERIES; i++) other.qc.setQueryData(['item', i], { version: 'v2', i, text: '' })
          await persistQueryClientSave({ queryClient: other.qc, persister: other.persister })
        }
        return inner.getMany(keys)
      },
    }
    const qc = client()
    await persistQueryClientRestore({ queryClient: qc, persister: createStowageClientPersister({ store, ...options }) })
    expect(first).toBe(false)
    const versions: Record<string, number> = {}
    for (const query of qc.getQueryCache().getAll()) {
      const { version } = query.state.data as { version: string }
      versions[version] = (versions[version] ?? 0) + 1
    }
    expect(versions).toStrictEqual({ v2: QUERIES })
  })
})
