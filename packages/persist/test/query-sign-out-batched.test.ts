// TanStack's setItem goes through a write batch that reaches the store a task later. A sign-out
// that begins after TanStack handed the signed-out user's query to setItem, before its batch went
// to the store, must still leave nothing of it once removeClient resolves (the README's sign-out
// reloads the page then): the removal waits for the batches under way before it lists the prefix.
import { createCodec, type Codec, type Store } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { expect, it } from 'vitest'
import { createStowageQueryPersister, type StowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, sleep, unique } from './helpers.js'


// `inner` until the page goes away (a reload): then nothing more it asks of the store happens.
function pageStore(inner: Store): Store & { leave(): void } {
  let gone = false
  const gate = <T>(work: () => Promise<T>): Promise<T> => (gone ? new Promise<T>(() => {}) : work())
  return {
    name: 'page',
    leave: () => (gone = true),
    get: (k) => gate(() => inner.get(k)),
    getMany: (k) => gate(() => inner.getMany!(k)),
    set: (k, v, o) => gate(() => inner.set(k, v, o)),
    setMany: (e) => gate(() => inner.setMany!(e)),
    delete: (k) => gate(() => inner.delete(k)),
    deleteMany: (k) => gate(() => inner.deleteMany!(k)),
    keys: (p) => inner.keys!(p),
  }
}

// Runs `then` after `depth` microtasks: later in the same task.
const later = (depth: number, then: () => void) => (depth === 0 ? then() : queueMicrotask(() => later(depth - 1, then)))

it("a sign-out begun in the task that handed A's query to setItem: once removeClient resolves (and the page reloads), the next user does not get A's query", async () => {
  const name = dbName()
  const prefix = unique('q')
  const page1 = pageStore(createIdbStore({ dbName: name }))
  const real = createCodec()
  let persister!: StowageQueryPersister
  let signOut: Promise<void> | undefined
  let armed = true
  // The sign-out (a click) comes in the task where A's query was encoded and handed to setItem.
  const codec = {
    encode: (value: unknown) => {
      const bytes = real.encode(value)
      if (armed) {
        armed = false
        later(40, () => (signOut = persister.removeClient()))
      }
      return bytes
    },
    decode: (bytes: Uint8Array) => real.decode(bytes),
  } as unknown as Codec
  persister = createStowageQueryPersister({ store: page1, prefix, codec })
  const qc = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, gcTime: Infinity } } })
  await qc.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'A', mail: 'secret' }) })
  for (let i = 0; i < 200 && signOut === undefined; i++) await sleep(5)
  expect(signOut).toBeDefined()
  await signOut
  page1.leave() // signOutEverywhere: location.reload()

  await sleep(100)
  const next = createStowageQueryPersister({ store: createIdbStore({ dbName: name }), prefix })
  const qcB = new QueryClient({ defaultOptions: { queries: { persister: next.persisterFn, staleTime: Infinity } } })
  const inbox = await qcB.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'B', mail: 'mine' }) })
  expect(inbox).toStrictEqual({ owner: 'B', mail: 'mine' })
})
