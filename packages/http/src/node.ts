// node:http's request and response, for the Fetch-based helpers in serve.ts. Typed structurally,
// so this package needs no Node types and Express or Fastify's raw objects fit too.
import { serveCached, type EnvelopeRequest, type ServeCachedOptions } from './serve.js'

/** What the helpers read of a node:http `IncomingMessage`. */
export interface NodeRequestLike {
  readonly method?: string | undefined
  readonly headers: Record<string, string | string[] | undefined>
}

/** What the helpers call on a node:http `ServerResponse`. */
export interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string | string[]>): unknown
  end(body?: Uint8Array): unknown
}

/** The method and headers of a node:http request, as {@link serveCached} takes them. */
export function fromNodeRequest(req: NodeRequestLike): EnvelopeRequest {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  return { method: req.method ?? 'GET', headers }
}

/**
 * Writes a Fetch `Response` to a node:http response: status, headers and body. Every `Set-Cookie`
 * goes out as its own header (Fetch's `Headers` joins the others' values with commas, which a
 * cookie's `Expires` date makes ambiguous).
 */
export async function sendNodeResponse(res: NodeResponseLike, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
  res.writeHead(response.status, headers)
  res.end(response.body === null ? undefined : new Uint8Array(await response.arrayBuffer()))
}

/**
 * {@link serveCached} for node:http: `await serveCachedNode(req, res, { cache, key, load })`.
 * @throws {StowageError} as {@link serveCached}; nothing is written then.
 */
export async function serveCachedNode(req: NodeRequestLike, res: NodeResponseLike, options: ServeCachedOptions): Promise<void> {
  await sendNodeResponse(res, await serveCached(fromNodeRequest(req), options))
}
