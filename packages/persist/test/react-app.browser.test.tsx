// A small React + TanStack Query app in a real Chromium, over its real IndexedDB. A "reload" is a
// new QueryClient and a new persister over the same database, rendered from scratch.
import { QueryClient, useQuery, useQueryClient } from '@tanstack/react-query'
import { PersistQueryClientProvider } from '@tanstack/react-query-persist-client'
import { createIdbStore } from '@stowage/idb'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cleanup, render } from 'vitest-browser-react'
import { create } from 'zustand'
import { persist } from 'zustand/middleware'
import { createStowageClientPersister, createStowageQueryPersister } from '../src/tanstack-query/index.js'
import { createStowageStorage } from '../src/zustand/index.js'

interface Issue {
  id: bigint
  title: string
  openedAt: Date
  labels: Map<string, string>
}

const dbName = () => `persist-browser-${Math.random().toString(36).slice(2)}`
const issues = (): Issue[] => [
  { id: 9_007_199_254_740_993n, title: 'Restore me', openedAt: new Date(Date.UTC(2024, 0, 2)), labels: new Map([['bug', '#d73a4a']]) },
  { id: 2n, title: 'Second', openedAt: new Date(Date.UTC(2024, 5, 6)), labels: new Map() },
]

// Rendering the types proves they survived: a JSON round trip would give strings and {} here.
function IssueList({ queryFn }: { queryFn: () => Promise<Issue[]> }) {
  const client = useQueryClient()
  const { data, status } = useQuery({ queryKey: ['issues'], queryFn, staleTime: Infinity })
  if (status !== 'success') return <p>loading</p>
  const addIssue = () => client.setQueryData<Issue[]>(['issues'], (old = []) => [...old, { id: 3n, title: 'Added offline', openedAt: new Date(Date.UTC(2025, 1, 3)), labels: new Map([['todo', '#fff']]) }])
  return (
    <div>
      <ul>
        {data.map((issue) => (
          <li key={String(issue.id)}>
            {`#${typeof issue.id === 'bigint' ? issue.id.toString() : 'not a bigint'} ${issue.title} opened ${issue.openedAt instanceof Date ? issue.openedAt.toISOString().slice(0, 10) : 'not a date'} labels ${issue.labels instanceof Map ? [...issue.labels.keys()].join(',') || 'none' : 'not a map'}`}
          </li>
        ))}
      </ul>
      <button onClick={addIssue}>add</button>
    </div>
  )
}

function App({ name, queryFn, buster = '', maxAge }: { name: string; queryFn: () => Promise<Issue[]>; buster?: string; maxAge?: number }) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, retry: false } } })
  const persister = createStowageClientPersister({ dbName: name, throttleTime: 0 })
  ;(App as { last?: typeof persister }).last = persister
  return (
    <PersistQueryClientProvider client={queryClient} persistOptions={{ persister, buster, ...(maxAge === undefined ? {} : { maxAge }) }}>
      <IssueList queryFn={queryFn} />
    </PersistQueryClientProvider>
  )
}
const lastPersister = () => (App as { last?: ReturnType<typeof createStowageClientPersister> }).last!
const never = () => new Promise<Issue[]>(() => {})

afterEach(() => cleanup())

describe('TanStack Query app with PersistQueryClientProvider (whole-client persister)', () => {
  it('shows the data after a reload without fetching, rich types intact, setQueryData included', async () => {
    const name = dbName()
    const first = await render(<App name={name} queryFn={async () => issues()} />)
    await expect.element(first.getByText('#9007199254740993 Restore me opened 2024-01-02 labels bug')).toBeInTheDocument()
    await first.getByRole('button', { name: 'add' }).click()
    await expect.element(first.getByText('#3 Added offline opened 2025-02-03 labels todo')).toBeInTheDocument()
    await lastPersister().flush()
    await first.unmount()

    const queryFn = vi.fn(never)
    const reloaded = await render(<App name={name} queryFn={queryFn} />)
    await expect.element(reloaded.getByText('#9007199254740993 Restore me opened 2024-01-02 labels bug')).toBeInTheDocument()
    await expect.element(reloaded.getByText('#2 Second opened 2024-06-06 labels none')).toBeInTheDocument()
    await expect.element(reloaded.getByText('#3 Added offline opened 2025-02-03 labels todo')).toBeInTheDocument()
    expect(queryFn).not.toHaveBeenCalled()
  })

  it('stores the client as a manifest and one segment in IndexedDB, as bytes', async () => {
    const name = dbName()
    const view = await render(<App name={name} queryFn={async () => issues()} />)
    await expect.element(view.getByText('#2 Second opened 2024-06-06 labels none')).toBeInTheDocument()
    await lastPersister().flush()
    await view.unmount()
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name)
      open.onsuccess = () => resolve(open.result)
      open.onerror = () => reject(open.error)
    })
    const rows = await new Promise<Array<{ key: string; value: ArrayBuffer }>>((resolve) => {
      const get = db.transaction('entries').objectStore('entries').getAll()
      get.onsuccess = () => resolve(get.result)
    })
    db.close()
    const keys = rows.map((r) => r.key).sort()
    expect(keys).toHaveLength(2)
    expect(keys[0]).toBe('tanstack-query-client:manifest')
    expect(keys[1]).toMatch(/^tanstack-query-client:s:/)
    for (const row of rows) expect(row.value).toBeInstanceOf(ArrayBuffer)
  })

  it('discards what was saved with another buster', async () => {
    const name = dbName()
    const first = await render(<App name={name} buster="v1" queryFn={async () => issues()} />)
    await expect.element(first.getByText('#2 Second opened 2024-06-06 labels none')).toBeInTheDocument()
    await lastPersister().flush()
    await first.unmount()
    const queryFn = vi.fn(async () => [{ id: 7n, title: 'Fetched for v2', openedAt: new Date(0), labels: new Map() }])
    const reloaded = await render(<App name={name} buster="v2" queryFn={queryFn} />)
    await expect.element(reloaded.getByText('#7 Fetched for v2 opened 1970-01-01 labels none')).toBeInTheDocument()
    expect(queryFn).toHaveBeenCalledTimes(1)
  })

  it('discards what is older than maxAge', async () => {
    const name = dbName()
    const first = await render(<App name={name} queryFn={async () => issues()} />)
    await expect.element(first.getByText('#2 Second opened 2024-06-06 labels none')).toBeInTheDocument()
    await lastPersister().flush()
    await first.unmount()
    await new Promise((r) => setTimeout(r, 50))
    const reloaded = await render(<App name={name} maxAge={20} queryFn={async () => [{ id: 8n, title: 'Fetched, too old', openedAt: new Date(0), labels: new Map() }]} />)
    await expect.element(reloaded.getByText('#8 Fetched, too old opened 1970-01-01 labels none')).toBeInTheDocument()
  })
})

describe('TanStack Query app with the per-query persister', () => {
  function PerQueryApp({ name, queryFn, buster = '' }: { name: string; queryFn: () => Promise<Issue[]>; buster?: string }) {
    const persister = createStowageQueryPersister({ dbName: name, buster })
    const queryClient = new QueryClient({ defaultOptions: { queries: { gcTime: Infinity, retry: false, persister: persister.persisterFn } } })
    persister.persistManualUpdates(queryClient)
    return (
      <PersistQueryClientProvider client={queryClient} persistOptions={{ persister: { persistClient() {}, restoreClient: () => undefined, removeClient() {} } }}>
        <IssueList queryFn={queryFn} />
      </PersistQueryClientProvider>
    )
  }

  it('restores a query on first use after a reload, with setQueryData persisted', async () => {
    const name = dbName()
    const first = await render(<PerQueryApp name={name} queryFn={async () => issues()} />)
    await expect.element(first.getByText('#2 Second opened 2024-06-06 labels none')).toBeInTheDocument()
    await first.getByRole('button', { name: 'add' }).click()
    await expect.element(first.getByText('#3 Added offline opened 2025-02-03 labels todo')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 100))
    await first.unmount()

    const queryFn = vi.fn(never)
    const reloaded = await render(<PerQueryApp name={name} queryFn={queryFn} />)
    await expect.element(reloaded.getByText('#3 Added offline opened 2025-02-03 labels todo')).toBeInTheDocument()
    await expect.element(reloaded.getByText('#9007199254740993 Restore me opened 2024-01-02 labels bug')).toBeInTheDocument()
    expect(queryFn).not.toHaveBeenCalled()
  })

  it('fetches instead when the buster differs', async () => {
    const name = dbName()
    const first = await render(<PerQueryApp name={name} queryFn={async () => issues()} />)
    await expect.element(first.getByText('#2 Second opened 2024-06-06 labels none')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 100))
    await first.unmount()
    const reloaded = await render(<PerQueryApp name={name} buster="v2" queryFn={async () => [{ id: 5n, title: 'Fresh', openedAt: new Date(0), labels: new Map() }]} />)
    await expect.element(reloaded.getByText('#5 Fresh opened 1970-01-01 labels none')).toBeInTheDocument()
  })
})

describe('Zustand store in React', () => {
  interface Prefs {
    visited: Map<string, Date>
    quota: bigint
    visit(page: string): void
  }
  const makeStore = (name: string) =>
    create<Prefs>()(
      persist((set) => ({ visited: new Map(), quota: 0n, visit: (page) => set((s) => ({ visited: new Map(s.visited).set(page, new Date(Date.UTC(2024, 2, 4))), quota: s.quota + 2n ** 70n })) }), {
        name: 'prefs',
        storage: createStowageStorage({ store: createIdbStore({ dbName: name }) }),
      }),
    )

  it('restores Map, Date and BigInt state in a new store over the same IndexedDB', async () => {
    const name = dbName()
    const useFirst = makeStore(name)
    await new Promise<void>((r) => (useFirst.persist.hasHydrated() ? r() : useFirst.persist.onFinishHydration(() => r())))
    function Visits({ useStore }: { useStore: typeof useFirst }) {
      const visited = useStore((s) => s.visited)
      const quota = useStore((s) => s.quota)
      return <p>{`${visited instanceof Map ? [...visited].map(([page, at]) => `${page}@${at instanceof Date ? at.toISOString().slice(0, 10) : '?'}`).join(' ') : 'not a map'} quota ${typeof quota === 'bigint' ? quota : 'not a bigint'}`}</p>
    }
    useFirst.getState().visit('home')
    useFirst.getState().visit('settings')
    await new Promise((r) => setTimeout(r, 50))

    const useSecond = makeStore(name)
    const view = await render(<Visits useStore={useSecond} />)
    await expect.element(view.getByText(`home@2024-03-04 settings@2024-03-04 quota ${2n * 2n ** 70n}`)).toBeInTheDocument()
  })
})
