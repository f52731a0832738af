// The demo page: fetches each object with fetchCached, which keeps the server's envelope bytes in
// IndexedDB as they arrived, revalidates with ETags, and serves them offline. It shows the sizes
// on both sides and checks the bytes in IndexedDB against the bytes in Redis.
import { createCache } from '@stowage/core'
import { createIdbStore, fetchCachedWithInfo, type FetchSource } from '@stowage/idb'

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
}
declare global {
  interface Window {
    demo: { ready: boolean; rows: Record<string, Row>; stats?: Stats; counts: Record<FetchSource, number> }
  }
}

const store = createIdbStore({ dbName: 'stowage-demo' })
const cache = createCache({ store, namespace: 'demo' })
window.demo = { ready: false, rows: {}, counts: { network: 0, revalidated: 0, offline: 0, stale: 0 } }
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('')
}

const kb = (n: number | null | undefined) => (n == null ? '—' : n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} kB`)

function summarize(value: { revision: number; data: unknown }): string {
  const data = value.data as Record<string, unknown> | unknown[]
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
  const previous = window.demo.rows[name]
  window.demo.rows[name] = {
    name,
    source: result.source,
    storedBytes: stored?.length ?? 0,
    equal: undefined,
    revision: result.value.revision,
    summary: summarize(result.value),
    decodeMs,
  }
  if (previous && previous.revision !== result.value.revision) flash.add(name)
}

const flash = new Set<string>()

async function refreshStats(): Promise<void> {
  try {
    window.demo.stats = (await (await fetch('/api/stats')).json()) as Stats
  } catch {
    // offline: keep the last figures
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
    row.equal = figures?.sha256 !== undefined && stored !== undefined ? figures.sha256 === (await sha256(stored)) : undefined
  }
}

function render(): void {
  const stats = window.demo.stats
  const rows = Object.values(window.demo.rows)
  $('rows').innerHTML = rows
    .map((row) => {
      const f = stats?.datasets[row.name]
      const equal = row.equal === undefined ? '<td>—</td>' : row.equal ? '<td class="ok">identical ✓</td>' : '<td class="bad">different ✗</td>'
      return `<tr data-name="${row.name}" class="${flash.has(row.name) ? 'flash' : ''}">
        <td><b>${f?.label ?? row.name}</b><br>revision ${row.revision}</td>
        <td>${row.summary}</td>
        <td>${kb(f?.jsonBytes)}</td>
        <td>${kb(f?.redisJson)} → <b>${kb(f?.redisStowage ?? f?.stowageBytes)}</b></td>
        <td><b>${kb(row.storedBytes)}</b></td>
        <td>${f?.encodeMs?.toFixed(2) ?? '—'} / ${f?.decodeMs?.toFixed(2) ?? '—'} ms (server)<br>${row.decodeMs.toFixed(1)} ms round trip + decode here</td>
        <td class="source">${row.source}</td>
        ${equal}
        <td><button data-invalidate="${row.name}">invalidate</button></td>
      </tr>`
    })
    .join('')
  flash.clear()
  // A small chart: JSON vs Stowage bytes, log scale.
  const chart = $<HTMLElement>('chart') as unknown as SVGSVGElement
  const bars = rows.filter((r) => stats?.datasets[r.name]?.jsonBytes)
  const max = Math.log10(Math.max(...bars.map((r) => stats!.datasets[r.name]!.jsonBytes!), 10))
  const width = (n: number) => Math.max(2, (Math.log10(Math.max(n, 1)) / max) * 520)
  chart.setAttribute('height', String(bars.length * 40 + 10))
  chart.innerHTML = bars
    .map((r, i) => {
      const f = stats!.datasets[r.name]!
      const y = i * 40 + 4
      return `<text x="0" y="${y + 14}">${r.name}</text>
        <rect class="bar-json" x="110" y="${y + 2}" height="14" width="${width(f.jsonBytes!)}"></rect>
        <text x="${116 + width(f.jsonBytes!)}" y="${y + 14}">JSON ${kb(f.jsonBytes)}</text>
        <rect class="bar-stowage" x="110" y="${y + 19}" height="14" width="${width(r.storedBytes)}"></rect>
        <text x="${116 + width(r.storedBytes)}" y="${y + 31}">Stowage ${kb(r.storedBytes)}</text>`
    })
    .join('')
  const c = window.demo.counts
  const server = stats?.server
  $('counts').textContent =
    `Browser: ${c.network} from the network, ${c.revalidated} revalidated (304, served from IndexedDB), ${c.offline} offline from IndexedDB. ` +
    (server ? `Server cache (${stats!.store}): ${server.hits} hits, ${server.misses} misses, ${server.notModified} answered 304.` : '')
}

async function loadAll(): Promise<void> {
  const names = window.demo.stats ? Object.keys(window.demo.stats.datasets) : ['items-100', 'items-1000', 'items-100000', 'post', 'session']
  $('status').textContent = 'loading…'
  for (const name of names) await load(name)
  await refreshStats()
  render()
  const offline = Object.values(window.demo.rows).some((r) => r.source === 'offline')
  $('status').textContent = offline ? 'server unreachable: showing what IndexedDB holds' : 'up to date'
  window.demo.ready = true
}

$('refresh').addEventListener('click', () => void loadAll())
$('rows').addEventListener('click', (event) => {
  const name = (event.target as HTMLElement).dataset.invalidate
  if (name) void fetch(`/api/invalidate/${name}`, { method: 'POST' })
})
// The server announces invalidations; the page refetches what changed.
const events = new EventSource('/api/events')
events.addEventListener('invalidate', (event) => {
  const { name } = JSON.parse((event as MessageEvent).data) as { name: string }
  void load(name).then(refreshStats).then(render)
})

await refreshStats()
await loadAll()
