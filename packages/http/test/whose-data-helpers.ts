// Shared by the whose-data tests: scripted node:http servers (closed after each test), envelopes
// with an ETag of the test server's own, two users' values, and a localStorage every tab shares.
import { createBroadcastInvalidation, createCache, createCodec, createMemoryStore, inspect, type Cache } from '@stowage/core'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach } from 'vitest'
import { STOWAGE_MEDIA_TYPE, type HintStorage } from '../src/index.js'
import { scripted, type Running } from './servers.js'

const running: Running[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()))
})

export const codec = createCodec()
export const userA = { id: 'a', name: 'Ada' }
export const userB = { id: 'b', name: 'Bob' }

/** A 200 with the envelope of `value`, an ETag of the test server's own (the envelope's CRC-32), and `headers`. */
export function send(res: ServerResponse, value: unknown, headers: Record<string, string> = {}): void {
  const bytes = codec.encode(value)
  res.writeHead(200, { 'Content-Type': STOWAGE_MEDIA_TYPE, ETag: `"${inspect(bytes).crc}"`, ...headers }).end(bytes)
}

/** A client cache over a memory store of its own. */
export const newCache = (): Cache => createCache({ store: createMemoryStore(), namespace: 'client' })

/** A scripted server, closed after the test. */
export async function server(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const s = await scripted(answer)
  running.push(s)
  return s
}

/** What a call came to: its source and value, or its rejection's code and status. */
export function outcome(p: Promise<{ source: string; value: unknown }>) {
  return p.then(
    (r) => ({ source: r.source, value: r.value }),
    (e: { code?: string; cause?: { status?: number } }) => ({ rejected: e.code, status: e.cause?.status }),
  )
}

/** localStorage, as every tab of a profile shares it. */
export function sharedStorage(): HintStorage & { items: Map<string, string> } {
  const items = new Map<string, string>()
  return { items, getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) }
}

/** Two tabs' caches over one store (namespace `app`), told of each other's clears through a channel of their own. */
export function twoTabs(): [Cache, Cache] {
  const store = createMemoryStore()
  const channel = `two-tabs-${Math.random()}`
  const tab = () => createCache({ store, namespace: 'app', invalidation: createBroadcastInvalidation(channel) })
  return [tab(), tab()]
}

/** A fetch whose answer the test gives when it chooses (`answer`), for a request that is out meanwhile. */
export function heldFetch(): { readonly fetch: typeof fetch; answer(response: Response): void } {
  let resolve: (response: Response) => void = () => {}
  return {
    fetch: () => new Promise<Response>((r) => (resolve = r)),
    answer: (response) => resolve(response),
  }
}
