// A real Next.js 16 app (test/next-app: an ISR page, a page around a 'use cache' function, a route
// that calls revalidatePath or revalidateTag), built with `next build` and run as two `next start`
// processes on one Redis of this test's own, both of Next's cache handlers on @stowage/next (the
// built package: turbo builds it before the tests).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { freePort, startRedisServer, type RedisServer } from '@stowage/redis-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const app = fileURLToPath(new URL('./next-app', import.meta.url))
const next = fileURLToPath(new URL('../node_modules/.bin/next', import.meta.url))
const namespace = `next-app-${Math.random().toString(36).slice(2)}`
let redis: RedisServer
const instances: Array<{ url: string; process: ChildProcess }> = []

function env(): NodeJS.ProcessEnv {
  return { ...process.env, NEXT_TELEMETRY_DISABLED: '1', REDIS_URL: redis.url, STOWAGE_NAMESPACE: namespace }
}

async function start(): Promise<string> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(next, ['start', '-p', String(port), '-H', '127.0.0.1'], { cwd: app, env: env(), stdio: ['ignore', 'ignore', 'inherit'] })
  instances.push({ url, process: child })
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      if ((await fetch(`${url}/api/revalidate?path=/none`, { method: 'POST' })).ok) return url
    } catch {}
    if (Date.now() > deadline) throw new Error('next start did not answer')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

// The page as an instance serves it: who rendered it, and Next's cache header.
async function page(url: string, path: string): Promise<{ status: number; cache: string | null; rendered: string | undefined }> {
  const response = await fetch(`${url}${path}`)
  const html = await response.text()
  return { status: response.status, cache: response.headers.get('x-nextjs-cache'), rendered: /rendered by \d+ at \d+/.exec(html)?.[0] }
}

// A 'use cache' page as an instance serves it: the cached function's text, and the page's own render.
async function quote(url: string, path: string): Promise<{ status: number; computed: string | undefined; rendered: string | undefined }> {
  const response = await fetch(`${url}${path}`)
  const html = await response.text()
  return { status: response.status, computed: /quote \d+ computed by \d+ at \d+/.exec(html)?.[0], rendered: /page rendered by \d+ at \d+/.exec(html)?.[0] }
}

// Time for what an instance writes after its response to land in Redis.
const settle = () => new Promise((resolve) => setTimeout(resolve, 1000))

beforeAll(async () => {
  redis = await startRedisServer()
  if (!existsSync(fileURLToPath(new URL('../dist/index.js', import.meta.url)))) throw new Error('packages/next/dist is missing: build the package first (pnpm build)')
  const built = spawnSync(next, ['build'], { cwd: app, env: env(), encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`next build failed:\n${built.stdout}\n${built.stderr}`)
  await Promise.all([start(), start()])
}, 240_000)

afterAll(async () => {
  for (const { process } of instances) process.kill()
  await redis?.stop()
})

describe('a Next.js 16 app, two instances on one Redis', () => {
  it('serves a page one instance rendered from the other, as a HIT: nothing rendered again', async () => {
    const [a, b] = instances.map((i) => i.url) as [string, string]
    const first = await page(a, '/product/1')
    expect(first.status).toBe(200)
    expect(first.rendered).toBeDefined()
    const second = await page(b, '/product/1')
    expect(second).toEqual({ status: 200, cache: 'HIT', rendered: first.rendered })
  })

  it('revalidatePath on one instance is seen by the other on its next request, which renders once; the first then serves that', async () => {
    const [a, b] = instances.map((i) => i.url) as [string, string]
    const before = await page(a, '/product/2')
    expect((await page(b, '/product/2')).rendered).toBe(before.rendered)
    expect((await fetch(`${a}/api/revalidate?path=/product/2`, { method: 'POST' })).ok).toBe(true)
    const after = await page(b, '/product/2')
    expect(after.status).toBe(200)
    expect(after.rendered).not.toBe(before.rendered)
    expect(await page(a, '/product/2')).toEqual({ status: 200, cache: 'HIT', rendered: after.rendered })
  })

  it('a use cache function: what one instance computed is what the other renders, until revalidateTag on either; then it is computed once more and shared again', async () => {
    const [a, b] = instances.map((i) => i.url) as [string, string]
    const first = await quote(a, '/quote/7')
    expect(first.status).toBe(200)
    expect(first.computed).toBeDefined()
    // Next writes the entry after the response (B would compute its own if asked before it lands),
    // and revalidates after the route answered: a pause, then polled.
    await settle()
    await expect.poll(() => quote(b, '/quote/7'), { timeout: 10_000 }).toMatchObject({ status: 200, computed: first.computed })
    // The page itself renders on every request; only the 'use cache' function is kept.
    const rendered = (await quote(a, '/quote/7')).rendered
    expect(await quote(a, '/quote/7')).toMatchObject({ status: 200, computed: first.computed })
    expect((await quote(a, '/quote/7')).rendered).not.toBe(rendered)
    expect((await fetch(`${b}/api/revalidate?tag=quote-7`, { method: 'POST' })).ok).toBe(true)
    await expect.poll(async () => (await quote(a, '/quote/7')).computed, { timeout: 10_000 }).not.toBe(first.computed)
    const again = await quote(a, '/quote/7')
    expect(again.status).toBe(200)
    expect(again.computed).toMatch(/^quote 7 computed by /)
    await settle()
    await expect.poll(async () => (await quote(b, '/quote/7')).computed, { timeout: 10_000 }).toBe(again.computed)
    // Another id is its own entry, untouched by that tag.
    const other = await quote(b, '/quote/8')
    await settle()
    await expect.poll(async () => (await quote(a, '/quote/8')).computed, { timeout: 10_000 }).toBe(other.computed)
  })

  it('renders pages while Redis is down, never an error page, and caches again once it is back', async () => {
    const [a, b] = instances.map((i) => i.url) as [string, string]
    await redis.stop()
    for (const url of [a, b]) {
      const down = await page(url, '/product/3')
      expect(down.status).toBe(200)
      expect(down.rendered).toBeDefined()
    }
    redis = await startRedisServer({ port: redis.port })
    // The store's circuit breaker lets a probe through after its cool-down (5 s by default).
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    const deadline = Date.now() + 20_000
    let shared = false
    while (!shared && Date.now() < deadline) {
      const first = await page(a, '/product/4')
      const second = await page(b, '/product/4')
      expect(first.status).toBe(200)
      expect(second.status).toBe(200)
      shared = second.cache === 'HIT' && second.rendered === first.rendered
      if (!shared) await new Promise((resolve) => setTimeout(resolve, 500))
    }
    expect(shared).toBe(true)
  }, 60_000)
})
