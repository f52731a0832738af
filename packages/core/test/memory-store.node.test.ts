import { expect, it } from 'vitest'
import { createMemoryStore } from '../src/index.js'

it('the memory store does not keep a Node process alive (its sweep timer is unref’d)', async () => {
  const active = () => process.getActiveResourcesInfo().filter((h) => h === 'Timeout').length
  const before = active()
  const store = createMemoryStore({ sweepInterval: 10 })
  expect(active()).toBe(before)
  await store.close()
})
