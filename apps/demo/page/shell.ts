// Registers the service worker (public/sw.js) and hands it the files this page was built from,
// so that a reload with the server down still shows the page.

/** Resolves once the service worker has been given this page's files; never rejects. */
export async function keepShell(): Promise<void> {
  if (!('serviceWorker' in navigator)) return
  try {
    await navigator.serviceWorker.register('/sw.js')
    const worker = (await navigator.serviceWorker.ready).active
    const ours = (name: string) => new URL(name).origin === location.origin && !new URL(name).pathname.startsWith('/api/')
    const files = performance.getEntriesByType('resource').map((entry) => entry.name).filter(ours)
    worker?.postMessage({ shell: [location.pathname, ...files] })
  } catch {
    // No service worker (a private window, an old browser): the page still works while online.
  }
}
