// Runs inside Chromium (bundled by idb-bench.ts): IndexedDB writes and reads of the same values
// through idb-keyval (structured clone), JSON strings, and Stowage.
import { createCache, createCodec } from '@stowage/core'
import { createIdbStore } from '@stowage/idb'
import { createStore, get, getMany, set, setMany } from 'idb-keyval'
import { w1, w2 } from '../workloads.js'

export interface PageRow {
  workload: string
  cells: Record<string, { writeMs: number; readMs: number; bytes?: number }>
}

declare global {
  interface Window {
    runIdbBench(real: RealSets): Promise<{ rows: PageRow[]; longestTaskMs: number; coldLongestTaskMs: number; bigBytes: number }>
  }
}

/** Real data handed in by idb-bench.ts: many values stored one per key, or one big value. */
export interface RealSets {
  readonly webhooks: unknown[]
  readonly emojis: unknown
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function time(samples: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await fn(-1 - i) // warm-up
  const out: number[] = []
  for (let i = 0; i < samples; i++) {
    const t = performance.now()
    await fn(i)
    out.push(performance.now() - t)
  }
  return median(out)
}

// Many values, one per key: the time to write (or read, or fetch) all of them, one after another.
async function manyRow(name: string, values: readonly unknown[], samples: number, kv: ReturnType<typeof createStore>, cache: ReturnType<typeof createCache>): Promise<PageRow> {
  const codec = cache.codec
  const jsons = values.map((v) => JSON.stringify(v))
  const envelopes = values.map((v) => codec.encode(v))
  const cells: PageRow['cells'] = {}
  cells['idb-keyval (structured clone)'] = {
    writeMs: await time(samples, async (r) => {
      for (let i = 0; i < values.length; i++) await set(`${name}:${r}:${i}`, values[i], kv)
    }),
    readMs: await time(samples, async (r) => {
      for (let i = 0; i < values.length; i++) await get(`${name}:${Math.max(r, 0)}:${i}`, kv)
    }),
  }
  cells['Stowage set/get'] = {
    writeMs: await time(samples, async (r) => {
      for (let i = 0; i < values.length; i++) await cache.set(`${name}:${r}:${i}`, values[i])
    }),
    readMs: await time(samples, async (r) => {
      for (let i = 0; i < values.length; i++) await cache.get(`${name}:${Math.max(r, 0)}:${i}`)
    }),
    bytes: envelopes.reduce((n, e) => n + e.length, 0),
  }
  cells['response → JSON → structured clone put'] = {
    writeMs: await time(samples, async (r) => {
      for (let i = 0; i < values.length; i++) await set(`${name}:r${r}:${i}`, await new Response(jsons[i]).json(), kv)
    }),
    readMs: Number.NaN,
  }
  cells['response → Stowage bytes put + decode (fetchCached)'] = {
    writeMs: await time(samples, async (r) => {
      for (let i = 0; i < values.length; i++) {
        const bytes = new Uint8Array(await new Response(envelopes[i] as Uint8Array<ArrayBuffer>).arrayBuffer())
        await codec.decodeAsync(bytes)
        await cache.setBytes(`${name}:s${r}:${i}`, bytes)
      }
    }),
    readMs: Number.NaN,
  }
  return { workload: name, cells }
}

window.runIdbBench = async (real) => {
  const kv = createStore('bench-kv', 'kv')
  const store = createIdbStore({ dbName: 'bench-stowage' })
  // What IndexedDB and the codec cost: no in-process tier (it would answer reads from memory,
  // with no IndexedDB read and no decode) and no breaker in front of the store.
  const cache = createCache({ store, namespace: 'b', local: false, breaker: false })
  // The same store without deflate: what compressing in JavaScript costs a browser.
  const plain = createCache({ store, namespace: 'p', codec: { compress: 'never' }, local: false, breaker: false })
  const codec = createCodec()
  // Long tasks while a ~10 MB value goes through the async path, measured first on a quiet page:
  // the first store (cold: code paths compiled, fflate's worker started) and a second one.
  const big = w1(150_000)
  let longest = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longest = Math.max(longest, entry.duration)
  })
  observer.observe({ type: 'longtask', buffered: false })
  const quiet = () => new Promise((r) => setTimeout(r, 300))
  await quiet()
  await cache.set('big', big)
  await quiet()
  const coldLongestTaskMs = longest
  longest = 0
  await cache.set('big', big)
  await quiet()
  const longestTaskMs = longest
  observer.disconnect()
  const rows: PageRow[] = []
  const workloads: Array<[string, () => unknown]> = [
    ['W1-100', () => w1(100)],
    ['W1-1000', () => w1(1000)],
    ['W1-10000', () => w1(10000)],
    ['W1-100000', () => w1(100000)],
    ['W2', () => w2()],
    ['emojibase (one 0.78 MB array)', () => real.emojis],
  ]
  for (const [name, make] of workloads) {
    const value = make()
    const samples = name === 'W1-100000' ? 5 : 15
    const json = JSON.stringify(value)
    const envelope = codec.encode(value)
    const cells: PageRow['cells'] = {}
    cells['idb-keyval (structured clone)'] = {
      writeMs: await time(samples, (i) => set(`${name}:${i}`, value, kv)),
      // Chromium deserializes the whole clone when the request's result is read, inside get().
      readMs: await time(samples, (i) => get(`${name}:${Math.max(i, 0)}`, kv)),
    }
    cells['idb-keyval + JSON string'] = {
      writeMs: await time(samples, (i) => set(`${name}:j${i}`, JSON.stringify(value), kv)),
      readMs: await time(samples, async (i) => JSON.parse((await get(`${name}:j${Math.max(i, 0)}`, kv)) as string)),
    }
    cells['Stowage set/get'] = {
      writeMs: await time(samples, (i) => cache.set(`${name}:${i}`, value)),
      readMs: await time(samples, (i) => cache.get(`${name}:${Math.max(i, 0)}`)),
      bytes: ((await cache.getBytes(`${name}:0`)) as Uint8Array).length,
    }
    cells["Stowage set/get, compress: 'never'"] = {
      writeMs: await time(samples, (i) => plain.set(`${name}:${i}`, value)),
      readMs: await time(samples, (i) => plain.get(`${name}:${Math.max(i, 0)}`)),
      bytes: ((await plain.getBytes(`${name}:0`)) as Uint8Array).length,
    }
    // From response bytes to "stored and decoded": JSON's way and fetchCached's way.
    cells['response → JSON → structured clone put'] = {
      writeMs: await time(samples, async (i) => {
        const obj = await new Response(json).json()
        await set(`${name}:r${i}`, obj, kv)
        return obj
      }),
      readMs: Number.NaN,
    }
    cells['response → Stowage bytes put + decode (fetchCached)'] = {
      writeMs: await time(samples, async (i) => {
        const bytes = new Uint8Array(await new Response(envelope as Uint8Array<ArrayBuffer>).arrayBuffer())
        const decoded = await cache.codec.decodeAsync(bytes)
        await cache.setBytes(`${name}:r${i}`, bytes)
        return decoded
      }),
      readMs: Number.NaN,
    }
    rows.push({ workload: name, cells })
  }
  rows.push(await manyRow('GitHub webhooks (329 payloads, one per key)', real.webhooks, 5, kv, cache))
  // W5: 500 posts in one transaction.
  const posts = Array.from({ length: 500 }, (_, i) => w2(i + 1))
  rows.push({
    workload: 'W5 (500 × W2, one transaction)',
    cells: {
      'idb-keyval (structured clone)': {
        writeMs: await time(3, (r) => setMany(posts.map((p, i) => [`w5:${r}:${i}`, p]), kv)),
        readMs: await time(3, (r) => getMany(posts.map((_, i) => `w5:${Math.max(r, 0)}:${i}`), kv)),
      },
      'Stowage set/get': {
        writeMs: await time(3, (r) => cache.setMany(posts.map((p, i) => ({ key: `w5:${r}:${i}`, value: p })))),
        readMs: await time(3, (r) => cache.getMany(posts.map((_, i) => `w5:${Math.max(r, 0)}:${i}`))),
      },
    },
  })
  return { rows, longestTaskMs, coldLongestTaskMs, bigBytes: JSON.stringify(big).length }
}
