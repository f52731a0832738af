// How a restore uses the compression worker: it has up to six segments inflating at once, asked for
// in groups (the asks of one task go to the worker in one message), hands
// them back in the manifest's order, and restores what a worker that fails midway left to it on the
// main thread. Node has no Web Workers, so the worker here is one of the test's own that inflates
// with node:zlib on a timer; Chromium runs the real one (client-persister.test.ts).
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createStowageClientPersister } from '../src/tanstack-query/index.js'
import { dbName } from './helpers.js'

const worker = vi.hoisted(() => ({ inFlight: 0, most: 0, inflates: 0, failAfter: Infinity, groups: [] as number[], grouping: false }))

vi.mock('../src/shared/compression-worker.js', () => ({
  startCompressionWorker: () => ({
    deflate: async (payload: Uint8Array) => new Uint8Array(deflateRawSync(payload)),
    inflate: (deflated: Uint8Array, payloadLength: number) => {
      if (++worker.inflates > worker.failAfter) return Promise.reject(new Error('the compression worker failed'))
      // Asks made in one task (before its microtasks run) count as one group.
      if (!worker.grouping) {
        worker.grouping = true
        worker.groups.push(0)
        queueMicrotask(() => (worker.grouping = false))
      }
      worker.groups[worker.groups.length - 1]!++
      worker.inFlight++
      worker.most = Math.max(worker.most, worker.inFlight)
      return new Promise<Uint8Array>((resolve) =>
        setTimeout(() => {
          worker.inFlight--
          const payload = new Uint8Array(inflateRawSync(deflated))
          expect(payload.length).toBe(payloadLength)
          resolve(payload)
        }, 2),
      )
    },
    close() {},
  }),
}))

const text = (i: number) => `post ${i}: ${'lorem ipsum '.repeat(300)}`

async function saved(): Promise<string> {
  const name = dbName()
  const qc = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
  for (let i = 0; i < 40; i++) qc.setQueryData(['post', i], { i, text: text(i) })
  await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0, segmentBytes: 8000 }) })
  return name
}

beforeEach(() => {
  Object.assign(worker, { inFlight: 0, most: 0, inflates: 0, failAfter: Infinity, groups: [], grouping: false })
})

describe('a restore and its compression worker', () => {
  it('keeps up to six segments inflating at once, asked for three at a time, and restores them in order', async () => {
    const name = await saved()
    Object.assign(worker, { inflates: 0, groups: [] })
    const restored = await createStowageClientPersister({ dbName: name }).restoreClient()
    const queries = restored!.clientState.queries
    expect(queries.map((q) => (q.state.data as { i: number }).i)).toStrictEqual(Array.from({ length: 40 }, (_, i) => i))
    expect(worker.inflates).toBeGreaterThanOrEqual(12)
    expect(worker.most).toBeGreaterThanOrEqual(2)
    expect(worker.most).toBeLessThanOrEqual(6)
    // The first six together, then three each time three of them are decoded (the last group: what is left).
    expect(worker.groups[0]).toBe(6)
    expect(worker.groups.slice(1, -1).every((n) => n === 3)).toBe(true)
    expect(worker.groups.reduce((a, b) => a + b, 0)).toBe(worker.inflates)
  })

  it('restores every segment when the worker fails midway: the rest are inflated on the main thread', async () => {
    const name = await saved()
    Object.assign(worker, { inflates: 0, failAfter: 3 })
    const restored = await createStowageClientPersister({ dbName: name }).restoreClient()
    expect(restored!.clientState.queries.map((q) => q.state.data)).toStrictEqual(Array.from({ length: 40 }, (_, i) => ({ i, text: text(i) })))
    expect(worker.inflates).toBeGreaterThan(3)
  })
})
