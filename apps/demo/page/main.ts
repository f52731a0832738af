// The demo page: fetches each object with fetchCached, which keeps the server's envelope bytes in
// IndexedDB as they arrived, revalidates with ETags, and serves them offline. It shows the sizes
// on both sides and checks the bytes in IndexedDB against the bytes in Redis. With the server
// unreachable it says so, and shows what this browser holds and can measure itself.
import { createCache, inspect } from '@stowage/core'
import { createIdbStore, fetchCachedWithInfo, type FetchSource } from '@stowage/idb'
import { DATASET_LABELS } from './datasets.js'
import { keepShell } from './shell.js'

interface ServerFigures {
  label: string
  revision: number
  jsonBytes?: number
  stowageBytes?: number
  redisJson?: number | null
  redisStowage?: number | null
  sha256?: string
  encodeMs?: number
  decodeMs?: number
}
interface Stats {
  store: 'redis' | 'memory'
  banner?: string
  datasets: Record<string, ServerFigures>
  server: { hits: number; misses: number; notModified: number }
}
interface Row {
  name: string
  source: FetchSource
  storedBytes: number
  equal: boolean | undefined
  revision: number
  summary: string
  decodeMs: number
  /** Read from IndexedDB and decode, in a cache without an in-process tier (as after a reload). */
  readMs: number
  /** The JSON path: the same value kept as JSON text in IndexedDB, read back and parsed. */
  jsonParseMs: number
  /** The value's JSON text in bytes, measured here (what the chart compares against). */
  jsonBytes: number
}
declare global {
  interface Window {
    demo: {
      ready: boolean
      rows: Record<string, Row>
      stats?: Stats
      counts: Record<FetchSource, number>
      shellKept?: boolean
      /** Whether the server answered the last stats request (undefined before the first). */
      online?: boolean
      /** The objects that could not be shown, with why (no server and nothing kept, say). */
      missing: Record<string, string>
    }
  }
}

const store = createIdbStore({ dbName: 'stowage-demo' })
const cache = createCache({ store, namespace: 'demo' })
// Reads that go to IndexedDB every time, as the first reads after a reload do.
const fromDisk = createCache({ store, namespace: 'demo', local: false })
// The JSON path beside it: the same data kept as JSON text in IndexedDB, read back and parsed.
const jsonStore = createIdbStore({ dbName: 'stowage-demo-json' })
const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()
window.demo = { ready: false, rows: {}, counts: { network: 0, revalidated: 0, offline: 0, stale: 0 }, missing: {} }
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('')
}

// Sizes in SI units, as people read them: 412 B, 26.4 kB, 6.6 MB.
const human = (n: number | null | undefined) =>
  n == null ? '—' : n < 1000 ? `${n} B` : n < 1e6 ? `${(n / 1e3).toFixed(1)} kB` : n < 1e9 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e9).toFixed(2)} GB`
// Stowage's size as a share of JSON's, and how many times smaller that is.
const ratio = (stowage: number | undefined, json: number | undefined) =>
  stowage === undefined || !json ? '—' : `${(stowage / json).toFixed(stowage / json < 0.01 ? 4 : 2)}× (${(json / stowage).toFixed(json / stowage < 10 ? 1 : 0)}× smaller)`

function summarize(value: { revision: number; data: unknown }): string {
  const data = value.data as Record<string, unknown> | unknown[]
  if (Array.isArray(data) && 'cca3' in (data[0] as object)) return `${data.length} countries; first ${(data[0] as { name: { common: string } }).name.common}`
  if (Array.isArray(data)) return `${data.length.toLocaleString('en')} items; last index ${(data.at(-1) as { index: number }).index}`
  if ('comments' in data) return `“${data.title as string}”, ${(data.comments as unknown[]).length} comments`
  return `session ${String(data.userId)}, scopes ${(data.scopes as string[]).join(', ')}`
}

async function load(name: string): Promise<void> {
  const url = `/api/data/${name}`
  const started = performance.now()
  const result = await fetchCachedWithInfo<{ revision: number; data: unknown }>(url, { cache })
  const decodeMs = performance.now() - started
  window.demo.counts[result.source]++
  const stored = await cache.getBytes(url)
  const readMs = await timed(() => fromDisk.get(url))
  const json = utf8.encode(JSON.stringify(result.value))
  await jsonStore.set(url, json)
  const jsonParseMs = await timed(async () => JSON.parse(fromUtf8.decode(await jsonStore.get(url))))
  const previous = window.demo.rows[name]
  window.demo.rows[name] = {
    name,
    source: result.source,
    storedBytes: stored?.length ?? 0,
    equal: undefined,
    revision: result.value.revision,
    summary: summarize(result.value),
    decodeMs,
    readMs,
    jsonParseMs,
    jsonBytes: json.length,
  }
  delete window.demo.missing[name]
  if (previous && previous.revision !== result.value.revision) flash.add(name)
}

const flash = new Set<string>()

// The median of five runs of `work`, in ms.
async function timed(work: () => unknown): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    await work()
    times.push(performance.now() - t)
  }
  return times.sort((a, b) => a - b)[2] as number
}

// The MessagePack an envelope holds, inflated: what both sides compare (fetchCached keeps a
// deflated envelope inflated in the browser, so the envelopes differ while the MessagePack is the same).
function payloadOf(bytes: Uint8Array): Uint8Array {
  const plain = cache.codec.inflateEnvelope(bytes)
  return plain.subarray(plain.length - inspect(plain).payloadLength)
}

async function refreshStats(): Promise<void> {
  try {
    const response = await fetch('/api/stats')
    if (!response.ok) throw new Error(`HTTP ${response.status}`)
    window.demo.stats = (await response.json()) as Stats
    window.demo.online = true
  } catch {
    // No server (or, from a plain static server, no API): keep the last figures, if any.
    window.demo.online = false
  }
  const stats = window.demo.stats
  if (!stats) return
  const banner = $<HTMLDivElement>('banner')
  banner.hidden = !stats.banner
  banner.textContent = stats.banner ?? ''
  // The byte-for-byte check: the SHA-256 of what IndexedDB holds against the server's of what Redis holds.
  for (const row of Object.values(window.demo.rows)) {
    const figures = stats.datasets[row.name]
    const stored = await cache.getBytes(`/api/data/${row.name}`)
    row.equal = figures?.sha256 !== undefined && stored !== undefined ? figures.sha256 === (await sha256(payloadOf(stored))) : undefined
  }
}

// Whether the server is out of reach: its stats request failed, or a row came from IndexedDB because the request failed.
const serverDown = () => window.demo.online === false || Object.values(window.demo.rows).some((r) => r.source === 'offline')
const INVALIDATE_OFF = 'The server is unreachable: invalidating asks it to change the object, so it waits until the server answers.'

function render(): void {
  const stats = window.demo.stats
  const rows = Object.values(window.demo.rows)
  const down = serverDown()
  const empty = `<tr><td colspan="13" class="empty">Nothing to show: the server is unreachable and this browser has kept nothing from an earlier visit. Start the demo with <code>pnpm demo</code> and open the address it prints.</td></tr>`
  $('rows').innerHTML = rows.length === 0 && down ? empty : rows
    .map((row) => {
      const f = stats?.datasets[row.name]
      const equal = row.equal === undefined ? '<td>—</td>' : row.equal ? '<td class="ok">identical ✓</td>' : '<td class="bad">different ✗</td>'
      return `<tr data-name="${row.name}" class="${flash.has(row.name) ? 'flash' : ''}">
        <td><b>${DATASET_LABELS[row.name as keyof typeof DATASET_LABELS] ?? f?.label ?? row.name}</b><br>revision ${row.revision}</td>
        <td>${row.summary}</td>
        <td>${human(f?.jsonBytes ?? row.jsonBytes)}</td>
        <td><b>${human(f?.stowageBytes)}</b></td>
        <td>${ratio(f?.stowageBytes, f?.jsonBytes)}</td>
        <td>${stats?.store === 'redis' ? `${human(f?.redisJson)} → <b>${human(f?.redisStowage)}</b>` : '—'}</td>
        <td><b>${human(row.storedBytes)}</b></td>
        <td>${f?.encodeMs?.toFixed(2) ?? '—'} / ${f?.decodeMs?.toFixed(2) ?? '—'} ms</td>
        <td>${row.decodeMs.toFixed(1)} ms</td>
        <td><b>${row.readMs.toFixed(2)} ms</b> / ${row.jsonParseMs.toFixed(2)} ms</td>
        <td class="source">${row.source}</td>
        ${equal}
        <td><button data-invalidate="${row.name}"${down ? ` disabled title="${INVALIDATE_OFF}"` : ''}>invalidate</button></td>
      </tr>`
    })
    .join('')
  flash.clear()
  // The server column says where the server caches; memory mode has no Redis figures to show.
  $('server-column').textContent = stats?.store === 'memory' ? 'in Redis: none (the server caches in memory)' : 'in Redis (memory used): JSON → Stowage'
  $('overhead-note').textContent = down
    ? 'The server is unreachable: the columns it fills (its envelope, Redis, its encode and decode times, the check of the bytes on both sides) show its last figures, or — when this page has none; the rest (JSON sizes included) is measured in this browser, on what IndexedDB holds.'
    : stats?.store === 'redis'
      ? 'Redis columns are MEMORY USAGE: the value plus what Redis spends on every key (the key itself, its metadata, allocator rounding: about 50 to 100 bytes), which is why a small envelope takes more room in Redis than the same bytes in IndexedDB. The last column compares the MessagePack on both sides (SHA-256): identical. The browser keeps an envelope the server deflated inflated (fetchCached\'s inflate), and every envelope with the server\'s ETag in its header (31 bytes, so that it can revalidate), so IndexedDB may hold more bytes than Redis for the same MessagePack, and reads it back without inflating.'
      : ''
  // A linear chart of what this browser holds: each row's JSON bar (the value's JSON text,
  // measured here) is full width, and the Stowage bar (the bytes in IndexedDB) drawn to the same
  // scale. Both are known without the server; with nothing loaded there is no chart, and the note says why.
  const chart = $<HTMLElement>('chart') as unknown as SVGSVGElement
  const bars = rows.filter((r) => r.jsonBytes > 0 && r.storedBytes > 0)
  chart.style.display = bars.length === 0 ? 'none' : ''
  $('chart-note').hidden = bars.length > 0
  $('chart-note').textContent = down
    ? 'No chart: this browser has kept nothing to measure, and the server is unreachable.'
    : 'No chart yet: nothing is loaded.'
  chart.setAttribute('height', String(bars.length * 52 + 4))
  chart.innerHTML = bars
    .map((r, i) => {
      const y = i * 52 + 2
      const full = 560
      const share = Math.max(1, (r.storedBytes / r.jsonBytes) * full)
      return `<text x="0" y="${y + 11}" class="label">${DATASET_LABELS[r.name as keyof typeof DATASET_LABELS] ?? r.name}</text>
        <rect class="bar-json" x="0" y="${y + 16}" height="14" width="${full}"></rect>
        <text x="${6 + full}" y="${y + 28}">JSON ${human(r.jsonBytes)}</text>
        <rect class="bar-stowage" x="0" y="${y + 33}" height="14" width="${share}"></rect>
        <text x="${6 + share}" y="${y + 45}">Stowage ${human(r.storedBytes)} (${((r.storedBytes / r.jsonBytes) * 100).toFixed(r.storedBytes / r.jsonBytes < 0.01 ? 2 : 0)}%)</text>`
    })
    .join('')
  const c = window.demo.counts
  const server = stats?.server
  $('counts').textContent =
    `Browser: ${c.network} from the network, ${c.revalidated} revalidated (304, served from IndexedDB), ${c.offline} offline from IndexedDB. ` +
    (server ? `Server cache (${stats!.store}): ${server.hits} hits, ${server.misses} misses, ${server.notModified} answered 304.` : '')
}

async function loadAll(): Promise<void> {
  const names = window.demo.stats ? Object.keys(window.demo.stats.datasets) : Object.keys(DATASET_LABELS)
  $('status').textContent = 'loading…'
  for (const name of names) {
    try {
      await load(name)
    } catch (e) {
      // Nothing kept for it and no answer from the server (or an answer that is no envelope).
      window.demo.missing[name] = String((e as Error)?.message ?? e)
    }
  }
  await refreshStats()
  render()
  const shown = Object.keys(window.demo.rows).length
  const missing = Object.keys(window.demo.missing).map((name) => DATASET_LABELS[name as keyof typeof DATASET_LABELS] ?? name)
  $('status').textContent = serverDown()
    ? shown > 0
      ? `server unreachable: showing what IndexedDB kept from an earlier visit${missing.length > 0 ? ` (not kept: ${missing.join(', ')})` : ''}; invalidate waits for the server.`
      : 'server unreachable, and this browser has kept nothing yet.'
    : missing.length > 0
      ? `could not load ${missing.join(', ')}: ${Object.values(window.demo.missing)[0]}`
      : 'up to date'
  $('status').className = serverDown() || missing.length > 0 ? 'warning' : ''
  window.demo.ready = true
}

$('refresh').addEventListener('click', () => void loadAll())
$('rows').addEventListener('click', (event) => {
  const button = event.target as HTMLButtonElement
  const name = button.dataset.invalidate
  if (name && !button.disabled) void fetch(`/api/invalidate/${name}`, { method: 'POST' })
})
// The server announces invalidations; the page refetches what changed.
const events = new EventSource('/api/events')
events.addEventListener('invalidate', (event) => {
  const { name } = JSON.parse((event as MessageEvent).data) as { name: string }
  void load(name).then(refreshStats).then(render)
})

// A reload with the server down still shows the page: the service worker keeps its files.
void keepShell().then(() => (window.demo.shellKept = true))

await refreshStats()
await loadAll()
