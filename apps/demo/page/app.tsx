// The countries app: a small app over real data (the world-countries npm package), as a person
// would build it. TanStack Query fetches through fetchCached (each response kept in IndexedDB as
// the server's envelope bytes, revalidated with a 304), and the Stowage persister writes the
// query cache to IndexedDB query by query, so a reload shows everything at once, favourites
// (setQueryData) included, even with the server down (the service worker keeps the page).
import { createCache } from '@stowage/core'
import { createIdbStore, fetchCachedWithInfo, type FetchSource } from '@stowage/idb'
import { createStowageClientPersister } from '@stowage/persist/tanstack-query'
import { QueryClient, useQuery, useQueryClient } from '@tanstack/react-query'
import { PersistQueryClientProvider } from '@tanstack/react-query-persist-client'
import { useMemo, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { keepShell } from './shell.js'

interface Summary {
  cca3: string
  name: string
  capital: string
  region: string
  subregion: string
  area: number
  flag: string
}
interface Country {
  cca3: string
  name: { common: string; official: string }
  capital: string[]
  region: string
  subregion: string
  area: number
  flag: string
  borders: string[]
  languages: Record<string, string>
  currencies: Record<string, { name: string; symbol?: string }>
}

declare global {
  interface Window {
    app: { ready: boolean; restored: boolean; sources: Record<string, FetchSource>; shellKept?: boolean }
  }
}
window.app = { ready: false, restored: false, sources: {} }

const cache = createCache({ store: createIdbStore({ dbName: 'stowage-demo-app' }), namespace: 'countries' })
const persister = createStowageClientPersister({ dbName: 'stowage-demo-app-queries' })
const DAY = 24 * 60 * 60 * 1000
const queryClient = new QueryClient({
  // networkMode 'always': the query function runs offline too, and fetchCached answers from IndexedDB.
  defaultOptions: { queries: { gcTime: DAY, staleTime: 60_000, retry: false, networkMode: 'always' } },
})

async function fetchJson<T>(path: string): Promise<T> {
  const result = await fetchCachedWithInfo<T>(path, { cache })
  window.app.sources[path] = result.source
  return result.value
}

// The list, asked of the server on every page load even when a fresh copy was restored (one
// request, answered 304): the status line then says whether the server answers, never a bare "—".
const countriesQuery = { queryKey: ['countries'], queryFn: () => fetchJson<Summary[]>('/api/countries'), refetchOnMount: 'always' as const }

// A failed request that no kept copy could answer: the server is unreachable (or, from a plain
// static server, there is no API), and IndexedDB holds nothing for it yet.
const NOTHING_KEPT = 'Nothing to show: the server is unreachable and this browser has kept nothing from an earlier visit. Start the demo with pnpm demo and open the address it prints.'

const number = new Intl.NumberFormat('en')

function CountryList({ selected, onSelect }: { selected: string | undefined; onSelect: (code: string) => void }) {
  const list = useQuery(countriesQuery)
  const favourites = useQuery<Set<string>>({ queryKey: ['favourites'], queryFn: () => new Set(), staleTime: Infinity })
  const client = useQueryClient()
  const [search, setSearch] = useState('')
  const [region, setRegion] = useState('')
  const regions = useMemo(() => [...new Set((list.data ?? []).map((c) => c.region))].sort(), [list.data])
  const shown = (list.data ?? []).filter((c) => (region === '' || c.region === region) && c.name.toLowerCase().includes(search.toLowerCase()))
  const toggle = (code: string) =>
    client.setQueryData<Set<string>>(['favourites'], (old) => {
      const next = new Set(old)
      if (next.has(code)) next.delete(code)
      else next.add(code)
      return next
    })
  if (list.isPending) return <p>loading…</p>
  if (list.isError)
    return (
      <p className="bad" id="list-error">
        {NOTHING_KEPT} <span className="muted">({String((list.error as Error)?.message ?? list.error)})</span>
      </p>
    )
  return (
    <div>
      <div className="filters">
        <input id="search" placeholder="Search 250 countries" value={search} onChange={(e) => setSearch(e.target.value)} />
        <select id="region" value={region} onChange={(e) => setRegion(e.target.value)}>
          <option value="">every region</option>
          {regions.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </div>
      <p className="muted" id="count">
        {shown.length} of {list.data.length} countries · favourites: {favourites.data?.size ?? 0}
      </p>
      <div className="list">
        <table>
          <tbody>
            {shown.map((c) => (
              <tr key={c.cca3} data-code={c.cca3} className={c.cca3 === selected ? 'selected' : ''} onClick={() => onSelect(c.cca3)}>
                <td>
                  <button className="star" data-star={c.cca3} aria-label="favourite" onClick={(e) => (e.stopPropagation(), toggle(c.cca3))}>
                    {favourites.data?.has(c.cca3) ? '★' : '☆'}
                  </button>
                </td>
                <td>{c.flag}</td>
                <td>
                  <b>{c.name}</b>
                </td>
                <td>{c.capital}</td>
                <td className="muted">{c.subregion || c.region}</td>
                <td className="muted">{number.format(c.area)} km²</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}

function CountryDetail({ code, onSelect }: { code: string; onSelect: (code: string) => void }) {
  const country = useQuery({ queryKey: ['country', code], queryFn: () => fetchJson<Country>(`/api/countries/${code}`) })
  if (country.isPending) return <div className="detail">loading…</div>
  if (country.isError) return <div className="detail bad">{String(country.error)}</div>
  const c = country.data
  return (
    <div className="detail" id="detail">
      <h2>
        {c.flag} {c.name.common}
      </h2>
      <p className="muted">{c.name.official}</p>
      <p>
        Capital: {c.capital.join(', ') || '—'} · {c.subregion || c.region} · {number.format(c.area)} km²
      </p>
      <p>Languages: {Object.values(c.languages).join(', ') || '—'}</p>
      <p>Currencies: {Object.values(c.currencies).map((x) => `${x.name}${x.symbol ? ` (${x.symbol})` : ''}`).join(', ') || '—'}</p>
      <div className="chips">
        Borders:{' '}
        {c.borders.length === 0
          ? 'none'
          : c.borders.map((b) => (
              <button key={b} onClick={() => onSelect(b)}>
                {b}
              </button>
            ))}
      </div>
    </div>
  )
}

function Status() {
  const list = useQuery(countriesQuery)
  const sources = Object.values(window.app.sources)
  // The server did not answer: a request was served from IndexedDB, or failed with nothing kept.
  const unreachable = sources.includes('offline') || list.isError
  const state = unreachable
    ? list.data === undefined
      ? 'server unreachable, and this browser has kept nothing yet.'
      : 'server unreachable: showing what IndexedDB holds.'
    : list.isFetching
      ? 'checking the server…'
      : sources.length > 0
        ? `data: ${[...new Set(sources)].join(', ')} (fetchCached: network, or revalidated with a 304).`
        : 'not checked with the server yet.'
  return (
    <p id="status" className={unreachable ? 'warning' : 'muted'}>
      {window.app.restored ? 'Restored from IndexedDB at once (the Stowage persister); ' : ''}
      {state}
    </p>
  )
}

// The country shown lives in the URL's fragment (#FRA), so a reload shows it again.
const shownInUrl = () => (/^#[A-Z]{3}$/.test(location.hash) ? location.hash.slice(1) : undefined)

function App() {
  const [selected, setShown] = useState<string | undefined>(shownInUrl)
  const setSelected = (code: string) => {
    history.replaceState(null, '', `#${code}`)
    setShown(code)
  }
  return (
    <>
      <header>
        <h1>Countries</h1>
        <p>
          A small app over real data (the <code>world-countries</code> npm package), cached as Stowage envelopes: in Redis on the server,
          in IndexedDB here, with the query cache persisted by <code>@stowage/persist</code>. <a href="/">The bytes, side by side</a>.
        </p>
        <Status />
      </header>
      <main className="app">
        <CountryList selected={selected} onSelect={setSelected} />
        {selected === undefined ? <div className="detail muted">Pick a country.</div> : <CountryDetail code={selected} onSelect={setSelected} />}
      </main>
    </>
  )
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <PersistQueryClientProvider
    client={queryClient}
    persistOptions={{ persister, buster: 'countries-v1', maxAge: DAY }}
    onSuccess={() => {
      window.app.restored = queryClient.getQueryData(['countries']) !== undefined
      window.app.ready = true
    }}
  >
    <App />
  </PersistQueryClientProvider>,
)
void keepShell().then(() => (window.app.shellKept = true))
