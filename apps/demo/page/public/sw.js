// The demo's service worker: the page itself (HTML, script, styles) comes from the network when
// the server answers and from the copy kept last time when it does not, so reloading with the
// server down still shows the app. The data never passes here (/api/ is left alone): fetchCached
// serves it from IndexedDB.
const SHELL = 'stowage-demo-shell-v1'

self.addEventListener('install', () => self.skipWaiting())
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()))

// The page tells which files it was built from (their names carry content hashes).
self.addEventListener('message', (event) => {
  const urls = event.data?.shell
  if (Array.isArray(urls)) event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(urls)))
})

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return
  event.respondWith(
    (async () => {
      const cache = await caches.open(SHELL)
      try {
        const response = await fetch(event.request)
        if (response.ok) await cache.put(event.request, response.clone())
        return response
      } catch (error) {
        const kept = await cache.match(event.request, { ignoreSearch: true })
        if (kept) return kept
        throw error
      }
    })(),
  )
})
