// The count of writes that makes a read start a new transaction is shared by every copy of
// @stowage/idb in a realm (an ESM and a CJS build both bundled, two versions in node_modules): a read
// asked for after a write of another copy's store, in the same task, must see it.
import { expect, it, vi } from 'vitest'

const dbName = () => `stowage-test-${Math.random().toString(36).slice(2)}`

it("a read asked for after a write of another copy's store of the same database sees it", async () => {
  const one = await import('../src/index.js')
  vi.resetModules()
  const other = await import('../src/index.js')
  expect(other.createIdbStore).not.toBe(one.createIdbStore)
  const name = dbName()
  const [a, b] = [one.createIdbStore({ dbName: name }), other.createIdbStore({ dbName: name })]
  await a.set('k', new Uint8Array([1]))
  await b.get('k')
  const [old, , now] = await Promise.all([b.get('k'), a.set('k', new Uint8Array([2])), b.get('k')])
  expect([old, now]).toStrictEqual([new Uint8Array([1]), new Uint8Array([2])])
  await Promise.all([a.close(), b.close()])
})
