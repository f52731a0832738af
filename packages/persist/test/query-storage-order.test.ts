// createQueryStorage's setItem reaches the store a task later, in a batch: a read, a delete or a
// listing asked for after a write must still come after it (TanStack's removeQueries removes a
// query it was just handed to write).
import { createIdbStore } from '@stowage/idb'
import { expect, it } from 'vitest'
import { createQueryStorage } from '../src/tanstack-query/index.js'
import { dbName, keysOf, sleep } from './helpers.js'


it('a delete, a read and a listing asked for after a write come after it', async () => {
  const store = createIdbStore({ dbName: dbName() })
  const storage = createQueryStorage({ store, prefix: 'q' })
  const bytes = new Uint8Array([1, 2, 3])
  const written = storage.setItem('q-a', bytes)
  const read = storage.getItem('q-a')
  const removed = storage.removeItem('q-a')
  await Promise.all([written, removed])
  expect(await read).toStrictEqual(bytes)
  await sleep(20)
  expect(await keysOf(store, 'q-')).toStrictEqual([])
})
