import { createIdbStore, type IdbStore } from '@stowage/idb'
import { createCodec, type Codec, type Store, type StoreEntry } from '@stowage/core'
import { QueryClient } from '@tanstack/query-core'
import { persistQueryClientSave } from '@tanstack/query-persist-client-core'
import { createStowageClientPersister } from '../src/tanstack-query/index.js'

/** A database name no other test uses. */
export const dbName = () => `persist-test-${Math.random().toString(36).slice(2)}`

/** Rich query data: what a JSON persister would turn into strings and plain objects. */
export const richData = (i = 1) => ({
  id: BigInt(i) * 10_000_000_000_000_000n,
  createdAt: new Date(1_700_000_000_000 + i),
  tags: new Set(['a', 'b']),
  byUser: new Map<string, number>([
    ['ada', i],
    ['grace', i + 1],
  ]),
  bytes: new Uint8Array([i, 2, 3]),
})

/** An IndexedDB store that records every write (the keys of each `set` or `setMany`) and every key deleted. */
export function recordingStore(name = dbName(), options: { maxBytes?: number } = {}): Store & { inner: IdbStore; writes: string[][]; deletes: string[][] } {
  const inner = createIdbStore({ dbName: name, ...options })
  const writes: string[][] = []
  const deletes: string[][] = []
  return {
    name: 'recording',
    inner,
    writes,
    deletes,
    get: (key) => inner.get(key),
    set: (key, value, o) => {
      writes.push([key])
      return inner.set(key, value, o)
    },
    delete: (key) => inner.delete(key),
    getMany: (keys) => inner.getMany(keys),
    setMany: (entries: readonly StoreEntry[]) => {
      writes.push(entries.map((e) => e.key))
      return inner.setMany(entries)
    },
    deleteMany: (keys: readonly string[]) => {
      deletes.push([...keys])
      return inner.deleteMany(keys)
    },
    clear: (prefix) => inner.clear(prefix),
    keys: (prefix) => inner.keys(prefix),
    close: () => inner.close(),
  }
}

/** Every key of a store under `prefix`. */
export async function keysOf(store: Store, prefix = ''): Promise<string[]> {
  const out: string[] = []
  for await (const key of store.keys!(prefix)) out.push(key)
  return out.sort()
}

/**
 * A store over `inner` whose writes after the first `afterWrites` fail (as a closed tab's would
 * never land) or never settle: a save interrupted midway. `stalled` resolves once a write is held
 * (a save can take longer than any fixed wait to get there on a loaded machine).
 */
export function interruptedStore(inner: Store, afterWrites: number, mode: 'fail' | 'stall'): Store & { stalled: Promise<void>; abandon(): void } {
  let writes = 0
  let abandoned = false
  const held: Array<(e: Error) => void> = []
  let reached!: () => void
  const stalled = new Promise<void>((resolve) => (reached = resolve))
  const gate = <T>(write: () => Promise<T>): Promise<T> => {
    if (writes++ < afterWrites) return write()
    if (mode === 'fail' || abandoned) return Promise.reject(new Error('the page was closed'))
    reached()
    return new Promise<T>((_, reject) => held.push(reject))
  }
  return {
    stalled,
    // The stalled page goes away: its save ends (with nothing more written) and lets go of its page lock, as a closed tab does.
    abandon: () => {
      abandoned = true
      held.splice(0).forEach((reject) => reject(new Error('the page was closed')))
    },
    name: 'interrupted',
    get: (key) => inner.get(key),
    getMany: (keys) => inner.getMany!(keys),
    keys: (prefix) => inner.keys!(prefix),
    set: (key, value, o) => gate(() => inner.set(key, value, o)),
    setMany: (entries) => gate(() => inner.setMany!(entries)),
    delete: (key) => gate(() => inner.delete(key)),
    deleteMany: (keys) => gate(() => inner.deleteMany!(keys)),
  }
}

/** The stored key of the whole-client persister's manifest (default key). */
export const MANIFEST_KEY = 'tanstack-query-client:manifest'

/**
 * `count` queries `['item', i]` holding `{ i }`, saved by the whole-client persister in a new
 * database: the database's store, a codec, the stored manifest, and the store key of its first segment.
 */
export async function savedItems(count: number): Promise<{ store: IdbStore; codec: Codec; manifest: Record<string, unknown> & { segments: string[] }; firstSegment: string }> {
  const name = dbName()
  const qc = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, staleTime: Infinity } } })
  for (let i = 0; i < count; i++) qc.setQueryData(['item', i], { i })
  await persistQueryClientSave({ queryClient: qc, persister: createStowageClientPersister({ dbName: name, throttleTime: 0 }) })
  const store = createIdbStore({ dbName: name })
  const codec = createCodec()
  const manifest = codec.decode<Record<string, unknown> & { segments: string[] }>((await store.get(MANIFEST_KEY))!)
  return { store, codec, manifest, firstSegment: `tanstack-query-client:s:${manifest.segments[0]}` }
}

/** `inner` with one method replaced. */
export function withMethod<K extends keyof Store>(inner: Store, name: K, method: NonNullable<Store[K]>): Store {
  return {
    name: 'wrapped',
    get: (k) => inner.get(k),
    set: (k, v, o) => inner.set(k, v, o),
    delete: (k) => inner.delete(k),
    getMany: (k) => inner.getMany!(k),
    setMany: (e) => inner.setMany!(e),
    deleteMany: (k) => inner.deleteMany!(k),
    clear: (p) => inner.clear!(p),
    keys: (p) => inner.keys!(p),
    [name]: method,
  }
}

/**
 * Holds the removal notices that reach the persisters made while `make` runs, until `deliver()`:
 * a notice from another tab comes when its process gets to it, after this page's own work of the
 * meantime (a BroadcastChannel message has no order against the page's other tasks).
 * @returns what `make` returned, and `deliver`, which hands over the notices held and every later one at once.
 */
export function withHeldNotices<T>(make: () => T): { made: T; deliver(): void; held(): number } {
  const Real = globalThis.BroadcastChannel
  const held: Array<() => void> = []
  let holding = true
  class Held extends Real {
    override set onmessage(listener: ((this: BroadcastChannel, event: MessageEvent) => unknown) | null) {
      super.onmessage = listener && ((event: MessageEvent) => (holding ? held.push(() => listener.call(this, event)) : listener.call(this, event)))
    }
    override get onmessage() {
      return super.onmessage
    }
  }
  globalThis.BroadcastChannel = Held
  try {
    return {
      made: make(),
      deliver: () => {
        holding = false
        held.splice(0).forEach((hear) => hear())
      },
      held: () => held.length,
    }
  } finally {
    globalThis.BroadcastChannel = Real
  }
}

/**
 * The bytes under `key` once they have landed: TanStack's per-query persister writes in a task it
 * schedules, then encodes and writes in tasks of its own (polls for up to 2 s).
 */
export async function landed(store: Store, key: string): Promise<Uint8Array> {
  for (let i = 0; i < 200; i++) {
    const bytes = await store.get(key)
    if (bytes !== undefined) return bytes
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`nothing landed under ${key} in 2 s`)
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** A name no other test uses: `what` and a random part. */
export const unique = (what: string): string => `${what}-${Math.random().toString(36).slice(2)}`

/** A promise and the function that resolves it. */
export function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * Another tab's store over `inner` whose writes and deletes wait to be let through: its write is
 * issued late (its task queue is busy), and so is its delete of it. `setReached` resolves once a
 * write is asked for.
 */
export function lateTabStore(inner: Store): { store: Store; setReached: Promise<void>; releaseSet(): void; releaseDelete(): void } {
  const [reached, setGate, deleteGate] = [deferred(), deferred(), deferred()]
  const store = {
    ...withMethod(inner, 'set', async (k, v, o) => {
      reached.resolve()
      await setGate.promise
      return inner.set(k, v, o)
    }),
    delete: async (k: string) => {
      await deleteGate.promise
      return inner.delete(k)
    },
  }
  return { store, setReached: reached.promise, releaseSet: setGate.resolve, releaseDelete: deleteGate.resolve }
}
