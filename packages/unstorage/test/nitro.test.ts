// A real Nitro 2 app (nitropack build, node-server preset, run as its own process) with its cache
// mount on this driver over Redis: every entry its cached function and cached handler write, with
// Nitro's defaults, carries a TTL in Redis.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { build, copyPublicAssets, createNitro, prepare } from 'nitropack'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

const root = fileURLToPath(new URL('./nitro-app', import.meta.url))
const bases: string[] = []
let out: string
let raw: Redis
const servers: ChildProcess[] = []

// Starts the built app as its own process, its cache under a key base of its own; resolves its URL.
async function start(ttl: number | undefined): Promise<{ url: string; base: string }> {
  const base = `unstorage-nitro-${Math.random().toString(36).slice(2)}`
  bases.push(base)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), NITRO_HOST: '127.0.0.1', REDIS_URL: inject('redisUrl'), STOWAGE_BASE: base, STOWAGE_TTL: ttl === undefined ? '' : String(ttl) }
  servers.push(spawn(process.execPath, [join(out, 'output/server/index.mjs')], { env, stdio: ['ignore', 'ignore', 'inherit'] }))
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      if ((await fetch(`${url}/page`)).ok) return { url, base }
    } catch {}
    if (Date.now() > deadline) throw new Error('the Nitro app did not answer')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

// Fills the cache: a cached function (two keys, one of them hit again), one with swr off, a cached handler.
async function browse(url: string): Promise<unknown> {
  const first = await (await fetch(`${url}/price?id=abc`)).json()
  await fetch(`${url}/price?id=defg`)
  await fetch(`${url}/fresh`)
  expect(await (await fetch(`${url}/price?id=abc`)).json()).toEqual(first)
  // Nitro writes in the background (event.waitUntil): give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 200))
  return first
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'stowage-nitro-'))
  const nitro = await createNitro({ rootDir: root, dev: false, preset: 'node-server', buildDir: join(out, '.nitro'), output: { dir: join(out, 'output') }, logLevel: 1 })
  await prepare(nitro)
  await copyPublicAssets(nitro)
  await build(nitro)
  await nitro.close()
  raw = new Redis(inject('redisUrl'))
}, 120_000)

afterAll(async () => {
  for (const server of servers) server.kill()
  for (const base of bases) {
    const keys = await raw.keys(`${base}:*`)
    if (keys.length > 0) await raw.unlink(...keys)
  }
  await raw?.quit()
  rmSync(out, { recursive: true, force: true })
})

describe('a Nitro 2 app with its cache on this driver', () => {
  it('gives every entry of a cached function and a cached handler, with Nitro’s defaults, the driver’s TTL in Redis', async () => {
    const { url, base } = await start(600)
    expect(await browse(url)).toMatchObject({ id: 'abc', cents: 300 })
    const keys = await raw.keys(`${base}:*`)
    expect(keys.some((key) => key.startsWith(`${base}:nitro:functions:price:`))).toBe(true)
    expect(keys.some((key) => key.startsWith(`${base}:nitro:handlers:`))).toBe(true)
    expect(keys.length).toBeGreaterThanOrEqual(4)
    for (const key of keys) {
      const ttl = await raw.pttl(key)
      // Nitro's own TTL wins where it gives one (swr off, maxAge 30).
      if (key.startsWith(`${base}:nitro:functions:fresh:`)) {
        expect(ttl, key).toBeGreaterThan(25_000)
        expect(ttl, key).toBeLessThanOrEqual(30_000)
        continue
      }
      expect(ttl, key).toBeGreaterThan(590_000)
      expect(ttl, key).toBeLessThanOrEqual(600_000)
      // Each entry is a Stowage envelope, not JSON text.
      expect(((await raw.getBuffer(key)) as Buffer)[0], key).toBe(0xc1)
    }
  })

  it('shows why the ttl option exists: without it, Nitro’s default entries never expire (PTTL -1)', async () => {
    const { url, base } = await start(undefined)
    await browse(url)
    const keys = await raw.keys(`${base}:*`)
    expect(keys.length).toBeGreaterThanOrEqual(4)
    for (const key of keys) if (!key.includes(':functions:fresh:')) expect(await raw.pttl(key), key).toBe(-1)
  })
})
