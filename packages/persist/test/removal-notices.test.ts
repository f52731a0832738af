// Removal notices (a sign-out told to the other pages at once) that reach a page before its first
// look at the removal record has landed: a restore running, a client handed over. A review found
// that such a notice was taken as the removal the page first saw, so the page never stopped (with
// no record stored before). And a persistManualUpdates batch under way when one is heard.
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientRestore, persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { describe, expect, it } from 'vitest'
import { createStowageClientPersister, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, withMethod } from './helpers.js'

const client = () => new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const uniqueKey = () => `client-${Math.random().toString(36).slice(2)}`

async function ownersIn(name: string, key: string): Promise<string[]> {
  const qc = client()
  await persistQueryClientRestore({ queryClient: qc, persister: createStowageClientPersister({ store: createIdbStore({ dbName: name }), key }) })
  return qc.getQueryCache().getAll().map((q) => (q.state.data as { owner: string }).owner)
}

describe('a notice heard before the first look', () => {
  it("a page restoring A's client while another page signs A out (the first sign-out: no record yet) hands nothing over, then saves on", async () => {
    const name = dbName()
    const key = uniqueKey()
    const inner = createIdbStore({ dbName: name })
    const qc0 = client()
    qc0.setQueryData(['account', 1], { owner: 'A', i: 1 })
    await persistQueryClientSave({ queryClient: qc0, persister: createStowageClientPersister({ store: inner, key, throttleTime: 0 }) })

    // Page 2 loads and restores; its segments are read, then it is still busy (decoding) when page 1 signs out.
    let segmentsRead!: () => void
    const read = new Promise<void>((r) => (segmentsRead = r))
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const slow = withMethod(inner, 'getMany', async (keys) => {
      const values = await inner.getMany(keys)
      if (keys.some((k) => k.includes(':s:'))) {
        segmentsRead()
        await gate
      }
      return values
    })
    const errors: Array<{ code: string }> = []
    const page2 = createStowageClientPersister({ store: slow, key, throttleTime: 0, onError: (e) => errors.push(e) })
    const qc2 = client()
    const restoring = persistQueryClientRestore({ queryClient: qc2, persister: page2 })
    await read
    await createStowageClientPersister({ store: createIdbStore({ dbName: name }), key }).removeClient() // page 1 signs A out
    await sleep(20) // the notice reaches page 2 during its restore
    release()
    await restoring
    // The restore hands nothing over: what it read is A's, whom page 1 signed out meanwhile (at
    // dc7cc4d page 2 showed and then saved A's queries, and the next user restored them).
    expect(qc2.getQueryCache().getAll()).toHaveLength(0)
    // Holding nothing of A, page 2 saves on: the next user's queries.
    qc2.setQueryData(['account', 2], { owner: 'B', i: 2 })
    await persistQueryClientSave({ queryClient: qc2, persister: page2 })
    expect(await ownersIn(name, key)).toStrictEqual(['B'])
    expect(errors).toStrictEqual([])
  })

  it("a page handed A's client (its first) while another page signs A out stops saving", async () => {
    const name = dbName()
    const key = uniqueKey()
    const inner = createIdbStore({ dbName: name })
    // Page 2's first look at the removal record is read, then lands late (a busy IndexedDB).
    let looked!: () => void
    const look = new Promise<void>((r) => (looked = r))
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let first = true
    const slow = withMethod(inner, 'get', async (k) => {
      const value = await inner.get(k)
      if (first && k.endsWith(':removed')) {
        first = false
        looked()
        await gate
      }
      return value
    })
    const errors: Array<{ code: string }> = []
    const page2 = createStowageClientPersister({ store: slow, key, throttleTime: 0, onError: (e) => errors.push(e) })
    const qc2 = client()
    qc2.setQueryData(['account', 1], { owner: 'A', i: 1 }) // fetched for A before the sign-out
    const saving = persistQueryClientSave({ queryClient: qc2, persister: page2 })
    await look
    await createStowageClientPersister({ store: createIdbStore({ dbName: name }), key }).removeClient() // page 1 signs A out
    await sleep(20)
    release()
    await saving
    expect(await ownersIn(name, key)).toStrictEqual([]) // a page that did not stop: ['A']
    expect(errors.map((e) => e.code)).toStrictEqual(['STORE_ERROR'])
  })
})

describe("the per-query persister against another page's removal: a persistManualUpdates batch under way", () => {
  it('a setQueryData batch that was under way when another page signed out does not outlive the removal', async () => {
    const name = dbName()
    const inner = createIdbStore({ dbName: name })
    const prefix = `q-${Math.random().toString(36).slice(2)}`
    let writing!: () => void
    const underWay = new Promise<void>((r) => (writing = r))
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let landing!: () => void
    const landed = new Promise<void>((r) => (landing = r))
    // Page 2's batch is under way (the store opening its database, or retrying after a quota error) when page 1 signs out.
    const slowBatches = withMethod(inner, 'setMany', async (entries) => {
      writing()
      await gate
      await inner.setMany(entries)
      landing()
    })
    const page2 = createStowageQueryPersister({ store: slowBatches, prefix })
    const qc = new QueryClient({ defaultOptions: { queries: { persister: page2.persisterFn, gcTime: Infinity } } })
    page2.persistManualUpdates(qc)
    qc.setQueryData(['inbox'], { owner: 'A', mail: 'secret' })
    await underWay
    await createStowageQueryPersister({ store: inner, prefix }).removeClient() // page 1 signs A out
    await sleep(20)
    release()
    await landed
    await sleep(50)
    expect(await keysOf(inner, `${prefix}-`)).toStrictEqual([]) // A's inbox would stay
  })
})
