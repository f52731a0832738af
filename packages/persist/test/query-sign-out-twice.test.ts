// Two sign-outs in turn, in two tabs (A, then B who signed in after A): the second stops the first
// tab and takes B's answers away, however soon it follows (found by a review of a time window).
import { createIdbStore } from '@stowage/idb'
import { QueryClient } from '@tanstack/query-core'
import { expect, it } from 'vitest'
import { createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { dbName, keysOf, sleep, unique, withMethod } from './helpers.js'

const storedText = async (store: ReturnType<typeof createIdbStore>, prefix: string) => {
  const out: string[] = []
  for (const key of await keysOf(store, `${prefix}-`)) out.push(new TextDecoder().decode(await store.get(key)))
  return out.join('|')
}

async function otherTabSignsOutAfter(ms: number) {
  const inner = createIdbStore({ dbName: dbName() })
  const prefix = unique('q')
  let gate!: () => void
  const held = new Promise<void>((r) => (gate = r))
  let hold = false
  // page 1's write of B's answer is under way (a slow IndexedDB transaction) while page 2 signs out
  const page1Store = withMethod(inner, 'set', async (k, v, o) => {
    if (hold) await held
    return inner.set(k, v, o)
  })
  const page1 = createStowageQueryPersister({ store: page1Store, prefix })
  const page2 = createStowageQueryPersister({ store: inner, prefix })
  const qc1 = new QueryClient({ defaultOptions: { queries: { persister: page1.persisterFn, gcTime: Infinity } } })
  const errors: unknown[] = []
  page1.persistManualUpdates(qc1, (e) => errors.push(e))
  await page1.removeClient() // A signs out in page 1
  await sleep(ms)
  hold = true
  await qc1.fetchQuery({ queryKey: ['inbox'], queryFn: async () => ({ owner: 'B', mail: 'secret of B' }) }) // B, signed in in page 1
  await sleep(20) // TanStack's scheduled write is under way
  await page2.removeClient() // page 2 signs out: B's session ends
  await sleep(30)
  gate()
  await sleep(100)
  return { errors, text: await storedText(inner, prefix) }
}

it("page 2 signs out 1.2 s after page 1: B's answer does not stay", async () => {
  const { text, errors } = await otherTabSignsOutAfter(1_200)
  expect(errors).toHaveLength(1) // page 1 stopped
  expect(text).not.toContain('secret of B')
}, 10_000)

it("page 2 signs out 0.3 s after page 1: B's answer does not stay either", async () => {
  const { text } = await otherTabSignsOutAfter(300)
  expect(text).not.toContain('secret of B')
}, 10_000)
