import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { createClient } from 'redis'
import { createClient as createClient6 } from 'redis6'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createCache, createMemoryStore } from '@stowage/core'
import { createRedisLease } from '../src/index.js'

// Real separate Node processes against one Redis: the fleet the lease is for.
const url = inject('redisUrl')
const fixture = fileURLToPath(new URL('./fixtures/stampede-process.mjs', import.meta.url))
let client: Redis
beforeAll(() => {
  client = new Redis(url)
})
afterAll(async () => {
  await client.quit()
})

function start(args: string[]): { child: ChildProcess; next: () => Promise<Record<string, unknown>> } {
  const child = fork(fixture, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const queue: Array<Record<string, unknown>> = []
  const waiting: Array<(m: Record<string, unknown>) => void> = []
  child.on('message', (m) => {
    const w = waiting.shift()
    if (w) w(m as Record<string, unknown>)
    else queue.push(m as Record<string, unknown>)
  })
  // A process that dies answers every wait with how it ended, so a broken fixture fails fast.
  child.on('exit', (code, signal) => {
    for (const w of waiting.splice(0)) w({ exited: code ?? signal })
  })
  const next = () => new Promise<Record<string, unknown>>((resolve) => (queue.length > 0 ? resolve(queue.shift() as Record<string, unknown>) : waiting.push(resolve)))
  return { child, next }
}

describe('a Redis lease across processes', () => {
  it('4 processes × 50 concurrent getOrSet of a cold key: one loader call in the whole fleet', async () => {
    const namespace = `lease-${Math.random().toString(36).slice(2)}`
    const counter = `${namespace}-loads`
    const fleet = [0, 1, 2, 3].map(() => start([url, namespace, '50', counter, 'normal', '5000']))
    for (const p of fleet) expect(await p.next()).toMatchObject({ ready: true })
    for (const p of fleet) p.child.send('go')
    const answers = await Promise.all(fleet.map((p) => p.next()))
    expect(Number(await client.get(counter))).toBe(1)
    const values = answers.flatMap((a) => a.values as unknown[])
    expect(values).toHaveLength(200)
    expect(new Set(values.map((v) => JSON.stringify(v))).size).toBe(1)
    await client.del(counter, `${namespace}:cold`)
  }, 30_000)

  it('a process killed while holding the lease: another loads once the lease time has passed', async () => {
    const namespace = `lease-${Math.random().toString(36).slice(2)}`
    const counter = `${namespace}-loads`
    const holder = start([url, namespace, '1', counter, 'hang', '1000'])
    expect(await holder.next()).toMatchObject({ ready: true })
    holder.child.send('go')
    expect(await holder.next()).toMatchObject({ holding: true })
    holder.child.kill('SIGKILL')
    const other = start([url, namespace, '5', counter, 'normal', '1000'])
    expect(await other.next()).toMatchObject({ ready: true })
    other.child.send('go')
    const answer = await other.next()
    expect(answer.values).toHaveLength(5)
    expect(Number(await client.get(counter))).toBe(2) // the dead holder's call, then one more
    expect(answer.ms).toBeLessThan(5_000)
    await client.del(counter, `${namespace}:cold`)
  }, 30_000)

  const clients = {
    ioredis: async () => ({ client, quit: async () => {} }),
    'node-redis 5': async () => {
      const c = createClient({ url })
      await c.connect()
      return { client: c, quit: () => c.close() }
    },
    'node-redis 6, RESP3': async () => {
      const c = createClient6({ url })
      await c.connect()
      return { client: c, quit: () => c.close() }
    },
  }
  for (const [kind, connect] of Object.entries(clients)) it(`gives a lease back only while it is still its own (${kind})`, async () => {
    const own = await connect()
    const lease = createRedisLease({ client: own.client })
    const key = `lease-own-${Math.random()}`
    // 500 ms: held for certain at the next call on a loaded machine (50 ms lapsed there first).
    const release = await lease.acquire(key, 500)
    expect(release).toBeTypeOf('function')
    expect(await lease.acquire(key, 50)).toBeUndefined()
    await new Promise((r) => setTimeout(r, 600)) // lapsed
    const second = await lease.acquire(key, 5_000)
    await release!() // the first holder's release must not free the second's lease
    expect(await lease.acquire(key, 50)).toBeUndefined()
    await second!()
    expect(await lease.acquire(key, 50)).toBeTypeOf('function')
    expect(() => createCache({ store: createMemoryStore(), lease: {} as never })).toThrow()
    await own.quit()
  })
})
