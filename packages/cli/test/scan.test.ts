import { createCodec } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { startRedisServer } from '@stowage/redis-server'
import type { Redis } from 'ioredis'
import { describe, expect, inject, it } from 'vitest'
import { redisClient, runCli, STACK_LINE, startCli, stderrShows, uniquePrefix } from './run-cli.js'

const rows = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ({ index: i + seed, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))

async function fill(client: Redis, prefix: string, n: number): Promise<void> {
  const pipeline = client.pipeline()
  for (let i = 0; i < n; i++) pipeline.set(`${prefix}${i}`, JSON.stringify(rows(5, i)))
  await pipeline.exec()
}

describe('stowage scan', () => {
  it('counts keys by kind, memory, envelope compression and the largest keys on a known data set', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('scan-kinds')
    const always = createCodec({ compress: 'always' })
    const never = createCodec({ compress: 'never' })
    const pipeline = client.pipeline()
    for (let i = 0; i < 30; i++) pipeline.set(`${p}json:${i}`, JSON.stringify(rows(20, i)), 'EX', 600)
    for (let i = 0; i < 10; i++) pipeline.set(`${p}deflated:${i}`, Buffer.from(always.encode(rows(50, i))))
    for (let i = 0; i < 10; i++) pipeline.set(`${p}plain:${i}`, Buffer.from(never.encode(rows(50, i))))
    for (let i = 0; i < 15; i++) pipeline.set(`${p}text:${i}`, `hello ${i}`)
    pipeline.set(`${p}broken`, '{"not": json')
    for (let i = 0; i < 3; i++) pipeline.hset(`${p}hash:${i}`, 'field', 'value')
    for (let i = 0; i < 2; i++) pipeline.rpush(`${p}list:${i}`, 'a', 'b')
    await pipeline.exec()
    const huge = Array.from({ length: 2000 }, (_, i) => `entry ${i}`)
    await createRedisStore({ client, chunkSize: 1024 }).set(`${p}huge`, never.encode(huge), { ttl: 600_000 })
    const chunkKeys = (await client.keys(`${p}huge:#chunk:*`)).length // a test's own handful of keys
    expect(chunkKeys).toBeGreaterThan(10)

    const { code, stdout, stderr } = await runCli(['scan', url, '--match', `*${p}*`, '--json', '--top', '3', '--count', '7'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.end).toBe('complete')
    expect(report.keys).toBe(30 + 20 + 1 + chunkKeys + 16 + 5)
    expect(report.kinds.stowage.keys).toBe(20 + 1 + chunkKeys)
    expect(report.kinds.json.keys).toBe(30)
    expect(report.kinds.string.keys).toBe(16)
    expect(report.kinds.other.keys).toBe(5)
    expect(report.otherTypes).toEqual({ hash: 3, list: 2 })
    expect(report.envelopes.byCompression).toEqual({ 'deflate-raw': 10, none: 10 })
    expect(report.envelopes.chunkManifests).toBe(1)
    expect(report.envelopes.chunks).toBe(chunkKeys)
    expect(report.envelopes.storedToPayload).toBeGreaterThan(0.1)
    expect(report.envelopes.storedToPayload).toBeLessThan(1)
    let jsonMemory = 0
    for (let i = 0; i < 30; i++) jsonMemory += (await client.memory('USAGE', `${p}json:${i}`)) ?? 0
    expect(report.kinds.json.memory).toBe(jsonMemory)
    expect(report.kinds.json.bytes).toBe(Array.from({ length: 30 }, (_, i) => JSON.stringify(rows(20, i)).length).reduce((a, b) => a + b))
    expect(report.largest).toHaveLength(3)
    expect(report.largest[0].memory).toBeGreaterThanOrEqual(report.largest[2].memory)
    expect(report.largest.every((l: { key: string; kind: string }) => l.key.startsWith(p) && l.kind === 'json')).toBe(true)
  })

  it('estimates what the JSON values would take as Stowage from a sample, stating its size and interval', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('scan-estimate')
    const pipeline = client.pipeline()
    // Values of different sizes, so the interval has a width.
    for (let i = 0; i < 60; i++) pipeline.set(`${p}${i}`, JSON.stringify(rows(10 + 7 * i, i)))
    await pipeline.exec()
    const { code, stdout } = await runCli(['scan', url, '--match', `${p}*`, '--json', '--sample', '25'])
    expect(code).toBe(0)
    const { jsonEstimate: e, kinds } = JSON.parse(stdout)
    expect(e.sampleSize).toBe(25)
    expect(e.population).toBe(60)
    expect(e.ratio).toBeGreaterThan(0)
    expect(e.ratio).toBeLessThan(0.5)
    expect(e.ci95[0]).toBeLessThan(e.ratio)
    expect(e.ci95[1]).toBeGreaterThan(e.ratio)
    expect(e.estimatedBytes).toBe(Math.round(kinds.json.bytes * e.ratio))
    expect(e.estimatedMemory).toBeLessThan(kinds.json.memory)

    const text = await runCli(['scan', url, '--match', `${p}*`, '--sample', '25'])
    expect(text.stdout).toMatch(/sample: 25 of 60 JSON values re-encoded with the default codec/)
    expect(text.stdout).toMatch(/ratio to JSON: 0\.\d+×, 95% interval 0\.\d+–0\.\d+/)
  })

  it('values too small for a dictionary and JSON the codec refuses: the report says so, and scan still succeeds', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('scan-small')
    const pipeline = client.pipeline()
    for (let i = 0; i < 50; i++) pipeline.set(`${p}tiny:${i}`, JSON.stringify([i]), 'EX', 600)
    pipeline.set(`${p}deep`, '['.repeat(150) + ']'.repeat(150), 'EX', 600)
    await pipeline.exec()
    const { code, stdout, stderr } = await runCli(['scan', url, '--match', `${p}*`, '--json', '--sample', '100'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const { jsonEstimate: e } = JSON.parse(stdout)
    expect(e.sampleSize).toBe(50)
    expect(e.withDictionary).toBeNull()
    expect([e.sampleInvalid, e.sampleRefused]).toStrictEqual([0, 1])
    const text = await runCli(['scan', url, '--match', `${p}*`, '--sample', '100'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/left out of the sample: 0 not valid JSON, 1 refused by the codec/)
    client.disconnect()
  })

  it('honours --rate roughly', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('scan-rate')
    await fill(client, p, 300)
    const started = Date.now()
    const { code, stdout } = await runCli(['scan', url, '--match', `${p}*`, '--json', '--rate', '150', '--sample', '0'])
    const elapsed = Date.now() - started
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.keys).toBe(300)
    // 300 keys at 150 keys/s: about 2 s (the last batch is not waited for).
    expect(report.elapsedMs).toBeGreaterThan(1500)
    expect(elapsed).toBeLessThan(8000)
    expect(report.keysPerSecond).toBeLessThanOrEqual(200)
  })

  it('stops on SIGINT (Ctrl-C) with the partial report and exit code 130', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('scan-sigint')
    await fill(client, p, 2000)
    const { child, finished } = startCli(['scan', url, '--match', `${p}*`, '--json', '--rate', '300', '--progress'])
    await stderrShows(child, /scanning [1-9]\d* keys/)
    child.kill('SIGINT')
    const { code, stdout, stderr } = await finished
    expect(code).toBe(130)
    expect(stderr).toContain('stowage: interrupted: the report covers the keys scanned so far')
    const report = JSON.parse(stdout)
    expect(report.end).toBe('interrupted')
    expect(report.keys).toBeGreaterThan(0)
    expect(report.keys).toBeLessThan(2000)
    expect(report.kinds.json.keys).toBe(report.keys)
    expect(stderr).not.toMatch(STACK_LINE)
  })

  it('reports a Redis that goes away mid-scan clearly, with the partial report and exit code 3', async () => {
    const server = await startRedisServer()
    try {
      const client = redisClient(server.url)
      await fill(client, 'k:', 3000)
      const { child, finished } = startCli(['scan', server.url, '--rate', '400', '--progress'])
      await stderrShows(child, /\| [1-9]\d*\/3000 keys/)
      await server.stop()
      const { code, stdout, stderr } = await finished
      expect(code).toBe(3)
      expect(stderr).toMatch(new RegExp(`stowage: STORE_ERROR: Redis at ${server.url} went away: .*(ECONNREFUSED|Connection is closed|max retries)`, 'i'))
      expect(stdout).toMatch(new RegExp(`stowage scan ${server.url}: REDIS WENT AWAY: a partial report`))
      const scanned = Number(/^([\d,]+) keys \(DBSIZE 3,000\)/m.exec(stdout)?.[1]?.replace(/,/g, ''))
      expect(scanned).toBeGreaterThan(0)
      expect(scanned).toBeLessThan(3000)
      expect(stdout + stderr).not.toMatch(STACK_LINE)
    } finally {
      await server.stop()
    }
  })

  it('says which command Redis refused (an ACL without EVAL), with the password hidden', async () => {
    const url = new URL(inject('redisUrl'))
    const client = redisClient()
    const p = uniquePrefix('scan-acl')
    await fill(client, p, 10)
    const user = p.replace(/:/g, '-').slice(0, -1)
    // This run's own server: a user that may SCAN but not run scripts.
    await client.call('ACL', 'SETUSER', user, 'on', '>secret-pw', '~*', '+@all', '-eval', '-evalsha')
    try {
      const { code, stdout, stderr } = await runCli(['scan', `redis://${user}:secret-pw@${url.host}`, '--match', `${p}*`])
      expect(code).toBe(3)
      // The user is a credential too: hidden with the password.
      expect(stderr).toMatch(new RegExp(`^stowage: STORE_ERROR: Redis at redis://\\*\\*\\*:\\*\\*\\*@${url.host} refused a command: NOPERM`))
      expect(stdout).toMatch(/: REDIS REFUSED A COMMAND: a partial report/)
      expect(stdout + stderr).not.toContain('secret-pw')
      expect(stdout + stderr).not.toContain(user)
    } finally {
      await client.call('ACL', 'DELUSER', user)
    }
  })

  it('says so when Redis cannot be reached at all', async () => {
    const { code, stdout, stderr } = await runCli(['scan', 'redis://127.0.0.1:1'])
    expect(code).toBe(3)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^stowage: STORE_ERROR: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: /)
  })
})
