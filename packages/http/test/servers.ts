// Real servers for the tests, each serving one cache through the helpers: node:http, Fastify, Hono.
import { serve as honoServe } from '@hono/node-server'
import type { Cache } from '@stowage/core'
import Fastify from 'fastify'
import { Hono } from 'hono'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fromNodeRequest, sendNodeResponse, serveCached, serveCachedNode } from '../src/index.js'

export interface Running {
  readonly name: string
  readonly url: string
  close(): Promise<void>
}

// Every server serves GET /entries/:key from `cache`, loading `load(key)` on a miss.
export type Loader = (key: string) => unknown

export async function nodeHttp(cache: Cache, load: Loader): Promise<Running> {
  const server = createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? '').replace(/^\/entries\//, ''))
    serveCachedNode(req, res, { cache, key, load: () => load(key) }).catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { name: 'node:http', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) }
}

export async function fastify(cache: Cache, load: Loader): Promise<Running> {
  const app = Fastify()
  app.get('/entries/:key', async (request, reply) => {
    const key = (request.params as { key: string }).key
    // Fastify's raw request and reply are node:http's.
    const response = await serveCached(fromNodeRequest(request.raw), { cache, key, load: () => load(key) })
    reply.hijack()
    await sendNodeResponse(reply.raw, response)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { name: 'Fastify', url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() }
}

export async function hono(cache: Cache, load: Loader): Promise<Running> {
  const app = new Hono()
  app.get('/entries/:key', (c) => serveCached(c.req.raw, { cache, key: c.req.param('key'), load: () => load(c.req.param('key')) }))
  const server = await new Promise<ReturnType<typeof honoServe>>((resolve) => {
    const s = honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  return { name: 'Hono', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) }
}

/** One request as a scripted server saw it. */
export interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string | string[] | undefined>
}

/**
 * A node:http server whose answers the test scripts: `answer` is called for every request (change
 * it between requests), and `seen` lists them.
 */
export async function scripted(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Running & { seen: Seen[]; answer: typeof answer }> {
  const seen: Seen[] = []
  const state = { answer }
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers })
    state.answer(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    name: 'scripted',
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    get answer() {
      return state.answer
    },
    set answer(next) {
      state.answer = next
    },
    close: () => {
      server.closeAllConnections()
      return new Promise((r) => server.close(() => r()))
    },
  }
}
