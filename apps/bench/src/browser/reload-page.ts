// Runs inside Chromium (bundled by reload-bench.ts), in a browser started on an on-disk profile:
// `store` writes the 329 GitHub webhook payloads the way each method keeps them; after the browser
// is closed and started again on the same profile, `read` times one method's first reads in the
// new page (cold JIT, data from disk), as an app's first screen after a reload meets them.
import { createCache } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'
import { createStore, get, getMany, setMany } from 'idb-keyval'

export type ReloadMethod = 'clone' | 'json' | 'stowage' | 'stowage-defaults' | 'stowage-server' | 'stowage-server-deflated' | 'stowage-bytes'

export type ReloadPass = 'batch' | 'one-by-one' | 'at-once'

export interface ReloadSample {
  /** Open, read every value and decode it, in one batch (getMany). */
  batchMs: number
  /** Open, then read and decode the values one call each, one after another. */
  oneByOneMs: number
  /** Open, then read and decode the values one call each, all asked for at once, as components mounting together would. */
  atOnceMs: number
  /** Bytes handed to IndexedDB (where measurable). */
  bytes: number | undefined
}

declare global {
  interface Window {
    storeReload(method: ReloadMethod, payloads: unknown[], serverEnvelopes: number[][]): Promise<number | undefined>
    readReload(method: ReloadMethod, count: number, pass: ReloadPass): Promise<number>
  }
}

const keys = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
let sink: unknown

window.storeReload = async (method, payloads, serverEnvelopes) => {
  if (method === 'clone' || method === 'json') {
    const kv = createStore(`reload-${method}`, 'keyval')
    const values = method === 'clone' ? payloads : payloads.map((p) => JSON.stringify(p))
    await setMany(values.map((v, i) => [`w:${i}`, v]), kv)
    return method === 'json' ? (values as string[]).reduce((n, s) => n + new TextEncoder().encode(s).length, 0) : undefined
  }
  const store = createIdbStore({ dbName: `reload-${method}`, sweepInterval: 0 })
  const cache = createCache({ store, local: false })
  // 'stowage': encoded in the page (the browser's policy: no deflate under 256 KiB); 'stowage-server':
  // the bytes a Node server sent (deflated from 1 KiB), taken in by acceptBytes, which in a browser
  // keeps them inflated; 'stowage-server-deflated': the same kept as they came (inflate: false).
  if (method === 'stowage') await cache.setMany(payloads.map((value, i) => ({ key: `w:${i}`, value })))
  else for (let i = 0; i < serverEnvelopes.length; i++) await cache.acceptBytes(`w:${i}`, new Uint8Array(serverEnvelopes[i]!), { inflate: method === 'stowage-server' ? undefined : false })
  let bytes = 0
  for await (const key of store.keys('')) bytes += (await store.get(key))?.length ?? 0
  await store.close()
  return bytes
}

window.readReload = async (method, count, pass) => {
  const t = performance.now()
  if (method === 'clone' || method === 'json') {
    const kv = createStore(`reload-${method}`, 'keyval')
    const parse = method === 'json' ? (v: unknown) => JSON.parse(v as string) : (v: unknown) => v
    if (pass === 'batch') sink = (await getMany(keys(count, 'w:'), kv)).map(parse)
    else if (pass === 'at-once') sink = await Promise.all(keys(count, 'w:').map(async (key) => parse(await get(key, kv))))
    else for (let i = 0; i < count; i++) sink = parse(await get(`w:${i}`, kv))
  } else if (method === 'stowage-bytes') {
    // The bytes alone, not decoded: what opening the store and reading cost.
    const store = createIdbStore({ dbName: 'reload-stowage', sweepInterval: 0 })
    await store.getMany([])
    const opened = performance.now()
    const names = keys(count, 'stowage:w%3A')
    if (pass === 'batch') sink = await store.getMany(names)
    else if (pass === 'at-once') sink = await Promise.all(names.map((key) => store.get(key)))
    else {
      const got: unknown[] = []
      for (const key of names) got.push(await store.get(key))
      sink = got
    }
    if ((sink as unknown[]).some((v) => v === undefined)) throw new Error('missing values')
    console.log(`open ${(opened - t).toFixed(1)} ms, reads ${(performance.now() - opened).toFixed(1)} ms`)
  } else if (method === 'stowage-defaults') {
    // What 'stowage' stored, read through a Cache as its README makes one: the in-process tier on
    // (each value kept deep-frozen), the store's sweeps on.
    const cache = createCache({ store: createIdbStore({ dbName: 'reload-stowage' }) })
    if (pass === 'batch') sink = await cache.getMany(keys(count, 'w:'))
    else if (pass === 'at-once') sink = await Promise.all(keys(count, 'w:').map((key) => cache.get(key)))
    else for (let i = 0; i < count; i++) sink = await cache.get(`w:${i}`)
    if (pass !== 'one-by-one' && (sink as unknown[]).some((v) => v === undefined)) throw new Error('missing values')
  } else {
    const cache = createCache({ store: createIdbStore({ dbName: `reload-${method}`, sweepInterval: 0 }), local: false })
    if (pass === 'batch') sink = await cache.getMany(keys(count, 'w:'))
    else if (pass === 'at-once') sink = await Promise.all(keys(count, 'w:').map((key) => cache.get(key)))
    else for (let i = 0; i < count; i++) sink = await cache.get(`w:${i}`)
  }
  return performance.now() - t
}
