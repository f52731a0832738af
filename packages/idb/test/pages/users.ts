// Bundled into a real page by fetch-cached-users.node.test.ts: a same-origin app with a cookie
// session that loads `/api/me` through fetchCached, as a single-page app does at boot, and signs
// its user out. `scoped` apps give fetchCached the user's scope and call signOut; others do neither.
import { createBroadcastInvalidation, createCache, StowageError } from '@stowage/core'
import { scopedCache, signOut } from '@stowage/http'
import { createIdbStore, fetchCachedWithInfo } from '../../src/index.js'

/** What one `me()` gave the page: a value with its source, or an error code with the HTTP status. */
export type MeResult = { source: string; value: unknown } | { error: string; status?: number }

declare global {
  interface Window {
    app: {
      login(user: string): Promise<void>
      logout(scope?: string): Promise<void>
      me(scope?: string): Promise<MeResult>
      peek(scope: string, key: string): Promise<unknown>
      saveState(state: string): void
      readState(): string | null
    }
  }
}

const cache = createCache({
  store: createIdbStore({ dbName: 'users' }),
  local: { ttl: 60_000 },
  invalidation: createBroadcastInvalidation('users'),
  namespace: 'app',
})

window.app = {
  async login(user) {
    await fetch(`/login?user=${user}`, { method: 'POST' })
  },
  async logout(scope) {
    await fetch('/logout', { method: 'POST' })
    if (scope !== undefined) await signOut({ cache, scope, persisted: [() => localStorage.removeItem('app-state')] })
  },
  async me(scope) {
    try {
      const { source, value } = await fetchCachedWithInfo('/api/me', { cache, scope, timeout: 3000 })
      return { source, value }
    } catch (e) {
      if (!StowageError.isInstance(e)) throw e
      return { error: e.code, status: (e.cause as Response | undefined)?.status }
    }
  },
  peek: (scope, key) => scopedCache(cache, scope).get(key),
  saveState: (state) => localStorage.setItem('app-state', state),
  readState: () => localStorage.getItem('app-state'),
}
