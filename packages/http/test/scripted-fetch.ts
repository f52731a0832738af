// A fetch that answers from a script, for tests of fetchCached's rules without a server: each call
// takes the next answer (none left: the network fails), and the request headers are recorded.
import { createCodec } from '@stowage/core'
import { STOWAGE_MEDIA_TYPE } from '../src/index.js'

const codec = createCodec()

/** One scripted answer; it sees the request's init. */
export type Answer = (init: RequestInit | undefined) => Response | Promise<Response>

/** A fetch that gives `answers` in turn, then fails as offline; `seen` holds each request's headers. */
export function scriptedFetch(answers: Answer[]): { fetch: typeof globalThis.fetch; seen: Headers[] } {
  const seen: Headers[] = []
  const fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Headers(init?.headers))
    const next = answers.shift()
    if (next === undefined) throw new TypeError('fetch failed (offline)')
    return next(init)
  }) as typeof globalThis.fetch
  return { fetch, seen }
}

/** A 200 with `value` as an envelope, the ETag `"v1"` unless `headers` say otherwise. */
export const ok = (value: unknown, headers: Record<string, string> = {}) => (): Response =>
  new Response(codec.encode(value) as Uint8Array<ArrayBuffer>, { status: 200, headers: { 'Content-Type': STOWAGE_MEDIA_TYPE, ETag: '"v1"', ...headers } })
/** A 304 with `headers`. */
export const notModified = (headers: Record<string, string> = {}) => (): Response => new Response(null, { status: 304, headers })
/** An empty answer of status `code`. */
export const status = (code: number) => (): Response => new Response(null, { status: code })
