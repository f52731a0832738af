// A built Next.js test app run as two `next start` processes on one redis-server of the test's own,
// both of Next's cache handlers on @stowage/next (the built package: turbo builds it before the
// tests). Shared by the Next 16 app's test and the Next 15 app's, so both run one harness.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, startRedisServer, type RedisServer } from '@stowage/redis-server'
import { afterAll, beforeAll } from 'vitest'

/** Two instances of one app, once the suite's `beforeAll` has built and started them. */
export interface TwoNextInstances {
  /** The base URLs of the two instances. */
  readonly urls: readonly [string, string]
  /** The version of `next` the app resolves (what `next build` and the app's imports use). */
  readonly nextVersion: string
  /** Stops the test's Redis (both instances keep running). */
  stopRedis(): Promise<void>
  /** Starts the test's Redis again on the port the instances were given. */
  restartRedis(): Promise<void>
}

/** What an instance served for a page: the status, Next's cache header, and who rendered it. */
export interface ServedPage {
  readonly status: number
  readonly cache: string | null
  /** The page's `rendered by <pid> at <ms>` text, when it has one. */
  readonly rendered: string | undefined
}

/**
 * Registers the suite's `beforeAll` (a Redis of its own, `next build`, two `next start`) and
 * `afterAll` (both instances and the Redis stopped).
 * @param options.app - the app's directory; `options.next` - the `next` binary that builds and runs it.
 */
export function twoNextInstances(options: { readonly app: string; readonly next: string }): TwoNextInstances {
  const { app, next } = options
  const namespace = `next-app-${Math.random().toString(36).slice(2)}`
  const processes: ChildProcess[] = []
  const urls: string[] = []
  let redis: RedisServer | undefined

  const env = (): NodeJS.ProcessEnv => ({ ...process.env, NEXT_TELEMETRY_DISABLED: '1', REDIS_URL: redis?.url, STOWAGE_NAMESPACE: namespace })

  async function start(): Promise<string> {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    processes.push(spawn(next, ['start', '-p', String(port), '-H', '127.0.0.1'], { cwd: app, env: env(), stdio: ['ignore', 'ignore', 'inherit'] }))
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        if ((await fetch(`${url}/api/revalidate?path=/none`, { method: 'POST' })).ok) return url
      } catch {}
      if (Date.now() > deadline) throw new Error('next start did not answer')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  beforeAll(async () => {
    redis = await startRedisServer()
    if (!existsSync(fileURLToPath(new URL('../dist/index.js', import.meta.url)))) throw new Error('packages/next/dist is missing: build the package first (pnpm build)')
    const built = spawnSync(next, ['build'], { cwd: app, env: env(), encoding: 'utf8' })
    if (built.status !== 0) throw new Error(`next build failed:\n${built.stdout}\n${built.stderr}`)
    urls.push(...(await Promise.all([start(), start()])))
  }, 240_000)

  afterAll(async () => {
    for (const child of processes) child.kill()
    await redis?.stop()
  })

  return {
    get urls() {
      if (urls.length !== 2) throw new Error('the instances are not started yet (read urls inside a test)')
      return urls as unknown as readonly [string, string]
    },
    get nextVersion() {
      return (createRequire(join(app, 'next.config.mjs'))('next/package.json') as { version: string }).version
    },
    async stopRedis() {
      await redis?.stop()
    },
    async restartRedis() {
      if (redis === undefined) throw new Error('no Redis was started')
      redis = await startRedisServer({ port: redis.port })
    },
  }
}

/** The page as an instance serves it: who rendered it, and Next's cache header. */
export async function servedPage(url: string, path: string): Promise<ServedPage> {
  const response = await fetch(`${url}${path}`)
  const html = await response.text()
  return { status: response.status, cache: response.headers.get('x-nextjs-cache'), rendered: /rendered by \d+ at \d+/.exec(html)?.[0] }
}

/**
 * A page around a cached function as an instance serves it: the function's `<name> <id> computed by
 * <pid> at <ms>` text, and the page's own `page rendered by <pid> at <ms>`.
 */
export async function servedComputation(url: string, path: string): Promise<{ status: number; computed: string | undefined; rendered: string | undefined }> {
  const response = await fetch(`${url}${path}`)
  const html = await response.text()
  return { status: response.status, computed: /\w+ \d+ computed by \d+ at \d+/.exec(html)?.[0], rendered: /page rendered by \d+ at \d+/.exec(html)?.[0] }
}

/** Asks an instance to revalidate a path (`{ path }`) or a tag (`{ tag }`) through the app's route. */
export async function revalidate(url: string, what: { path: string } | { tag: string }): Promise<boolean> {
  return (await fetch(`${url}/api/revalidate?${new URLSearchParams(what)}`, { method: 'POST' })).ok
}

/** Waits `ms` milliseconds. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Time for what an instance writes after its response to land in Redis. */
export const settle = () => pause(1000)
