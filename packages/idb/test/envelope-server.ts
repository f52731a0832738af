import { envelopeEtag } from '@stowage/http'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

/**
 * A real HTTP server on loopback that serves Stowage envelopes with their ETags, as
 * @stowage/http's helpers do, for fetchCached's tests in Node and in every browser engine. Each test owns a resource
 * under its own id, which it steers over HTTP (the browser tests cannot reach into Node):
 *
 * - `PUT /<id>/body` with the bytes to serve;
 * - `PUT /<id>/state?failWith=500` or `?offline=1` (connections are then cut, as if the network were down),
 *   `?refusePreflight=1` (OPTIONS answered 405 as a server without CORS preflight support does),
 *   `?cacheControl=…` (the Cache-Control header of its answers);
 * - `GET /<id>/requests`: the requests the resource has seen, as JSON;
 * - anything else under `/<id>/` is the resource.
 *
 * CORS is open, since a browser test page runs on another origin (vitest's own server).
 */
export async function startEnvelopeServer(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const resources = new Map<string, Resource>()
  const server = createServer((req, res) => {
    handle(resources, req, res).catch((e) => res.writeHead(500).end(String(e)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

interface Resource {
  body: Uint8Array
  failWith: number | undefined
  offline: boolean
  refusePreflight: boolean
  cacheControl: string | undefined
  readonly requests: Array<{ accept: string | undefined; ifNoneMatch: string | undefined }>
}

async function handle(resources: Map<string, Resource>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost')
  const [, id = '', action] = url.pathname.split('/')
  let resource = resources.get(id)
  if (!resource) resources.set(id, (resource = { body: new Uint8Array(), failWith: undefined, offline: false, refusePreflight: false, cacheControl: undefined, requests: [] }))
  const control = req.method === 'PUT' || action === 'requests'
  if (resource.offline && !control) return void req.socket.destroy()

  res.setHeader('Access-Control-Allow-Origin', '*')
  res.setHeader('Access-Control-Expose-Headers', 'ETag')
  if (req.method === 'OPTIONS' && resource.refusePreflight) return void res.writeHead(405, { Allow: 'GET, HEAD' }).end()
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, PUT')
    res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? '')
    return void res.writeHead(204).end()
  }
  if (req.method === 'PUT' && action === 'body') {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    resource.body = new Uint8Array(Buffer.concat(chunks))
    return void res.writeHead(204).end()
  }
  if (req.method === 'PUT' && action === 'state') {
    const failWith = url.searchParams.get('failWith')
    resource.failWith = failWith ? Number(failWith) : undefined
    resource.offline = url.searchParams.get('offline') === '1'
    resource.refusePreflight = url.searchParams.get('refusePreflight') === '1'
    resource.cacheControl = url.searchParams.get('cacheControl') ?? undefined
    return void res.writeHead(204).end()
  }
  if (action === 'requests') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(resource.requests))

  resource.requests.push({ accept: req.headers.accept, ifNoneMatch: req.headers['if-none-match'] })
  if (resource.failWith) return void res.writeHead(resource.failWith).end()
  // A body that is not an envelope (the refusal test) goes out without an ETag.
  const etag = resource.body[0] === 0xc1 ? await envelopeEtag(resource.body) : undefined
  const headers = { ...(etag === undefined ? {} : { ETag: etag }), ...(resource.cacheControl === undefined ? {} : { 'Cache-Control': resource.cacheControl }) }
  if (etag !== undefined && req.headers['if-none-match'] === etag) return void res.writeHead(304, headers).end()
  res.writeHead(200, { 'Content-Type': 'application/vnd.stowage', ...headers }).end(resource.body)
}
