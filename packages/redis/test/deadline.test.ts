// The store's command deadline: one timer for all of a store's calls (deadline.ts). Calls that
// answer in time keep their own result, calls that do not are STORE_ERROR at their deadline (not
// another call's), and a store with nothing waiting never keeps the process alive.
import { spawnSync } from 'node:child_process'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { StowageError, StowageErrorCode } from '@stowage/core'
import { describe, expect, inject, it } from 'vitest'
import { Deadlines } from '../src/deadline.js'

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms))
const failLater = (ms: number, error: Error) => new Promise<never>((_, reject) => setTimeout(() => reject(error), ms))
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (e: unknown) => ({ error: e as Error }),
  )

describe('Deadlines', () => {
  it('passes on what a call answers in time, value or error', async () => {
    const deadlines = new Deadlines(200)
    const error = new Error('WRONGTYPE')
    expect(await deadlines.run(later(10, 'a'), 'GET')).toBe('a')
    await expect(deadlines.run(failLater(10, error), 'GET')).rejects.toBe(error)
    expect(await deadlines.run(Promise.resolve(7), 'GET')).toBe(7)
  })

  it('hands each answer to its hooks, and a hook that throws still settles the call', async () => {
    let answered = 0
    const deadlines = new Deadlines(
      200,
      undefined,
      undefined,
      () => answered++,
      (what, e) => {
        if ((e as Error).message === 'odd') throw new TypeError('the hook broke')
        return new Error(`${what}: ${(e as Error).message}`)
      },
    )
    expect(await deadlines.run(later(5, 'a'), 'GET')).toBe('a')
    expect(answered).toBe(1)
    await expect(deadlines.run(failLater(5, new Error('WRONGTYPE')), 'GET')).rejects.toThrow('GET: WRONGTYPE')
    await expect(deadlines.run(failLater(5, new Error('odd')), 'GET')).rejects.toThrow('the hook broke')
  })

  it('times out exactly the calls that do not answer, each at its own deadline', async () => {
    const timeouts: number[] = []
    const deadlines = new Deadlines(80, () => new Error('ECONNRESET'), () => timeouts.push(performance.now()))
    const start = performance.now()
    const never = new Promise<never>(() => {})
    const calls = [
      outcome(deadlines.run(never, 'GET')),
      outcome(deadlines.run(later(20, 'fast'), 'GET')),
      outcome(later(40, null).then(() => deadlines.run(never, 'SET'))),
      outcome(deadlines.run(later(200, 'slow'), 'MGET')),
    ]
    const [first, fast, third, slow] = await Promise.all(calls)
    expect(fast).toEqual({ value: 'fast' })
    for (const [result, what] of [[first, 'GET'], [third, 'SET'], [slow, 'MGET']] as const) {
      const error = (result as { error: StowageError }).error
      expect(StowageError.isInstance(error) && error.code).toBe(StowageErrorCode.STORE_ERROR)
      expect(error.message).toBe(`Redis ${what} timed out after 80 ms (the connection: ECONNRESET)`)
    }
    expect(timeouts).toHaveLength(3)
    // The call started 40 ms later timed out 40 ms later, not with the first.
    expect(timeouts[0]! - start).toBeGreaterThanOrEqual(79)
    expect(timeouts[2]! - timeouts[0]!).toBeGreaterThanOrEqual(30)
  })

  it('still times out calls after every earlier call answered', async () => {
    const deadlines = new Deadlines(30)
    for (let round = 0; round < 3; round++) {
      expect(await deadlines.run(Promise.resolve(round), 'GET')).toBe(round)
      await expect(deadlines.run(new Promise(() => {}), 'GET')).rejects.toThrow('Redis GET timed out after 30 ms')
    }
  })

  it('a call that fails after its deadline is no unhandled rejection', async () => {
    const unhandled: unknown[] = []
    const listen = (e: unknown) => unhandled.push(e)
    process.on('unhandledRejection', listen)
    try {
      const deadlines = new Deadlines(20)
      await expect(deadlines.run(failLater(60, new Error('late')), 'GET')).rejects.toThrow('timed out')
      await later(80, null)
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', listen)
    }
  })

  it('keeps no answer alive once it is handed over, while other calls still wait', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const deadlines = new Deadlines(5000)
    const slow = deadlines.run(later(300, 'slow'), 'GET')
    let answer: WeakRef<object> | undefined
    await (async () => {
      const reply = await deadlines.run(Promise.resolve({ bytes: new Uint8Array(1 << 20) }), 'GET')
      answer = new WeakRef(reply)
    })()
    await later(10, null)
    gc()
    expect(answer?.deref()).toBeUndefined()
    expect(await slow).toBe('slow')
  })

  it('thousands of calls at once each get their own answer', async () => {
    const deadlines = new Deadlines(1000)
    const values = await Promise.all(Array.from({ length: 5000 }, (_, i) => deadlines.run(i % 7 === 0 ? later(1, i) : Promise.resolve(i), 'GET')))
    expect(values).toEqual(Array.from({ length: 5000 }, (_, i) => i))
  })
})

describe('a store with nothing waiting', () => {
  it('lets the process exit at once, however long its command timeout', () => {
    const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js')
    const script = `
      const { createRedisStore } = await import(${JSON.stringify(dist)})
      const { Redis } = await import('ioredis')
      const client = new Redis(${JSON.stringify(inject('redisUrl'))})
      const store = createRedisStore({ client, commandTimeout: 60000 })
      const key = 'stowage-test:deadline-exit:' + Math.random()
      await store.set(key, new Uint8Array([1]))
      await store.get(key)
      await store.delete(key)
      client.disconnect()
    `
    const started = Date.now()
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(dirname(dist), '..'), timeout: 30_000, encoding: 'utf8' })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})
