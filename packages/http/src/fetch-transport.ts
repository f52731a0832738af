// fetchCached's transport: one exchange with the server under a deadline that covers the headers
// and the body, the body read without passing a byte limit. No caching decision is made here
// (fetch-policy.ts makes them).
import { StowageError, StowageErrorCode } from '@stowage/core'

/** A deadline over one exchange, joined to the app's own signal. */
export interface Deadline {
  readonly signal: AbortSignal
  /** Whether the deadline (not the app's signal) ended the exchange. */
  timedOut(): boolean
  /** Whether the app's own signal aborted. */
  aborted(): boolean
  clear(): void
  /** Gives up: the request (and the reading of its body) is aborted, and the timer cleared. */
  abandon(): void
}

/** A deadline of `timeout` ms (`Infinity`: none), aborting also when `signal` does. */
export function startDeadline(timeout: number, signal: AbortSignal | null | undefined): Deadline {
  const controller = new AbortController()
  let expired = false
  const timer = Number.isFinite(timeout)
    ? setTimeout(() => {
        expired = true
        controller.abort(new StowageError(StowageErrorCode.TIMEOUT, `no complete answer within ${timeout} ms`))
      }, timeout)
    : undefined
  const follow = () => controller.abort(signal?.reason)
  const clear = () => {
    clearTimeout(timer)
    signal?.removeEventListener('abort', follow)
  }
  if (signal?.aborted) follow()
  else signal?.addEventListener('abort', follow, { once: true })
  return {
    signal: controller.signal,
    timedOut: () => expired,
    aborted: () => signal?.aborted === true,
    clear,
    abandon: () => {
      clear()
      controller.abort(new StowageError(StowageErrorCode.STORE_ERROR, 'the request was abandoned: the call it was made for failed'))
    },
  }
}

/**
 * The body, read as it streams in, never past `limit` bytes.
 * @throws {StowageError} LIMIT_EXCEEDED past `limit`; the stream's own error when it fails.
 */
export async function readBody(response: Response, limit: number, url: string): Promise<Uint8Array> {
  const tooLarge = (what: string) => new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `the response from ${url} is ${what}, more than maxBytes (${limit})`)
  const declared = Number(response.headers.get('Content-Length') ?? NaN)
  if (declared > limit) {
    await response.body?.cancel().catch(() => {})
    throw tooLarge(`${declared} bytes by its Content-Length`)
  }
  if (response.body === null) return new Uint8Array(0)
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (total > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(`over ${total} bytes so far`)
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array
  const out = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

/** The page's URL in a browser (its origin is the page's), else undefined. */
export function pageUrl(): string | undefined {
  const location = (globalThis as { location?: { href?: string } }).location
  return typeof location?.href === 'string' && /^https?:/.test(location.href) ? location.href : undefined
}

/**
 * What `fetch` resolves a relative URL against: the document's base URL (a `<base href>` moves
 * it), else the global `location` (a worker), whatever its scheme (`capacitor:`, `app:`, `file:`,
 * an extension's); undefined where there is none (Node).
 */
export function baseUrl(): string | undefined {
  const g = globalThis as { document?: { baseURI?: unknown }; location?: { href?: unknown } }
  const base = g.document?.baseURI ?? g.location?.href
  return typeof base === 'string' && base !== '' ? base : undefined
}

/** Whether the browser says it is online (true outside a browser, where it cannot tell). */
export function online(): boolean {
  const navigator = (globalThis as { navigator?: { onLine?: boolean } }).navigator
  return navigator?.onLine !== false
}

/** Whether an answer is a redirect that `redirect: 'manual'` stopped at (a 3xx in Node, an opaque redirect in browsers). */
export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400 && response.status !== 304)
}
