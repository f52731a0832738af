// Stored records the persister never writes, found by a review of 2026-11-28: each is read without
// losing the rest of the client (both tests failed before their fixes).
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it } from 'vitest'
import { createStowageClientPersister } from '../src/tanstack-query/index.js'
import { MANIFEST_KEY, savedItems } from './helpers.js'

const client = () => new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })

describe('restore: a stored query whose `promise` is not a promise', () => {
  it('is left out alone; the other queries are restored and the persisted client is kept', async () => {
    const { store, codec, firstSegment: key } = await savedItems(5)
    const queries = codec.decode<Record<string, unknown>[]>((await store.get(key))!)
    // Passes isDehydratedQuery (string queryHash, array queryKey, numeric times, known status).
    queries.push({ queryHash: '["hostile"]', queryKey: ['hostile'], state: { data: 1, dataUpdatedAt: 1, errorUpdatedAt: 0, status: 'success' }, promise: {} })
    await store.set(key, codec.encode(queries))

    const restored = client()
    const warn = console.warn
    console.warn = () => {}
    let thrown: unknown
    try {
      await persistQueryClientRestore({ queryClient: restored, persister: createStowageClientPersister({ store }) })
    } catch (e) {
      thrown = e
    } finally {
      console.warn = warn
    }
    const manifestKept = (await store.get(MANIFEST_KEY)) !== undefined
    expect({ thrown: String(thrown), manifestKept, item4: restored.getQueryData(['item', 4]) }).toStrictEqual({ thrown: 'undefined', manifestKept: true, item4: { i: 4 } })
  })
})

describe('restore: a manifest that lists one segment twice', () => {
  it('restores its queries, and the next save keeps them stored', async () => {
    const { store, codec, manifest } = await savedItems(5)
    expect(manifest.segments).toHaveLength(1)
    await store.set(MANIFEST_KEY, codec.encode({ ...manifest, segments: [manifest.segments[0], manifest.segments[0]] }))

    const second = client()
    const persister = createStowageClientPersister({ store, throttleTime: 0 })
    await persistQueryClientRestore({ queryClient: second, persister })
    expect(second.getQueryCache().getAll()).toHaveLength(5)
    await persistQueryClientSave({ queryClient: second, persister })

    const third = client()
    await persistQueryClientRestore({ queryClient: third, persister: createStowageClientPersister({ store }) })
    expect(third.getQueryCache().getAll()).toHaveLength(5)
  })
})

describe('restore: stored mutations of odd shapes', () => {
  it('are taken or left out without losing the queries, and resuming paused mutations does not throw', async () => {
    const { store, codec, manifest } = await savedItems(3)
    const mutations = [
      { state: { status: 'pending', isPaused: true, variables: 1 }, mutationKey: ['pay'], scope: 'not an object' },
      { state: { status: 'pending', isPaused: true }, gcTime: 'soon', meta: 'text' },
      { state: { status: 'idle' }, scope: { id: { nested: true } } },
      { state: null },
      'not a mutation',
    ]
    await store.set(MANIFEST_KEY, codec.encode({ ...manifest, mutations }))
    const restored = client()
    await persistQueryClientRestore({ queryClient: restored, persister: createStowageClientPersister({ store }) })
    expect(restored.getQueryData(['item', 2])).toStrictEqual({ i: 2 })
    expect(restored.getMutationCache().getAll().length).toBeLessThanOrEqual(3)
    await restored.resumePausedMutations() // rejects if a restored mutation breaks it
    expect(await store.get(MANIFEST_KEY)).toBeDefined()
  })
})
