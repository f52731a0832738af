import { decode, encode, inspect } from '@stowage/core'
import type { Redis } from 'ioredis'
import { describe, expect, inject, it } from 'vitest'
import { defineSwap } from '../src/convert/swap-script.js'
import { redisClient, runCli, STACK_LINE, startCli, stderrShows, uniquePrefix } from './run-cli.js'

const rows = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ({ index: i + seed, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))

async function dataSet(client: Redis, p: string) {
  const pipeline = client.pipeline()
  for (let i = 0; i < 40; i++) pipeline.set(`${p}json:${i}`, JSON.stringify(rows(100, i)), 'PX', 300_000 + i * 1000)
  for (let i = 0; i < 5; i++) pipeline.set(`${p}forever:${i}`, JSON.stringify({ n: i, name: `item ${i}` }))
  for (let i = 0; i < 3; i++) pipeline.set(`${p}bad:${i}`, `{"broken": ${i}`)
  pipeline.set(`${p}envelope`, Buffer.from(encode({ already: true })))
  pipeline.hset(`${p}hash`, 'a', '1')
  await pipeline.exec()
}

async function snapshot(client: Redis, p: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const key of (await client.keys(`${p}*`)).sort()) out.set(key, (await client.type(key)) === 'string' ? (await client.getBuffer(key))!.toString('hex') : 'not a string')
  return out
}

describe('stowage convert', () => {
  it('rewrites JSON values as envelopes that decode to the same data, keeping every TTL, and lists what it refused', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert')
    await dataSet(client, p)
    const ttlsBefore = await Promise.all(Array.from({ length: 40 }, (_, i) => client.pttl(`${p}json:${i}`)))
    const since = Date.now()
    const { code, stdout, stderr } = await runCli(['convert', url, '--match', `${p}*`, '--batch', '7', '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report).toMatchObject({ end: 'complete', dryRun: false, scanned: 50, converted: 45, alreadyStowage: 1, notStrings: 1, invalid: 3, changedMeanwhile: 0 })
    expect(report.invalidKeys.map((k: { key: string }) => k.key).sort()).toEqual([0, 1, 2].map((i) => `${p}bad:${i}`))
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore / 10)
    expect(report.memoryAfter).toBeLessThan(report.memoryBefore / 5)
    for (let i = 0; i < 40; i++) {
      const bytes = (await client.getBuffer(`${p}json:${i}`))!
      expect(inspect(bytes).formatVersion).toBe(2)
      expect(decode(bytes)).toEqual(rows(100, i))
      const ttl = await client.pttl(`${p}json:${i}`)
      // The TTL was kept, not reset: counting down from what it was, by no more than the time that
      // passed (a loaded machine makes that seconds, so it is measured, not assumed).
      expect(ttl).toBeLessThanOrEqual(ttlsBefore[i]!)
      expect(ttlsBefore[i]! - ttl).toBeLessThanOrEqual(Date.now() - since + 50)
    }
    expect(await client.pttl(`${p}forever:0`)).toBe(-1)
    expect(decode((await client.getBuffer(`${p}forever:3`))!)).toEqual({ n: 3, name: 'item 3' })
    expect(await client.get(`${p}bad:1`)).toBe('{"broken": 1')

    const text = await runCli(['convert', url, '--match', `${p}bad:*`])
    expect(text.stdout).toMatch(/Refused \(not valid JSON\)\n {2}".*bad:\d": /)
  })

  it('converts nothing on a second run: envelopes are recognised and skipped', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert-again')
    await dataSet(client, p)
    expect((await runCli(['convert', url, '--match', `${p}*`])).code).toBe(0)
    const after = await snapshot(client, p)
    const second = await runCli(['convert', url, '--match', `${p}*`, '--json'])
    expect(second.code).toBe(0)
    expect(JSON.parse(second.stdout)).toMatchObject({ converted: 0, alreadyStowage: 46, invalid: 3 })
    expect(await snapshot(client, p)).toEqual(after)
  })

  it('changes nothing with --dry-run, and says what it would convert', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert-dry')
    await dataSet(client, p)
    const before = await snapshot(client, p)
    const { code, stdout } = await runCli(['convert', url, '--match', `${p}*`, '--dry-run'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/--dry-run \(nothing written\): complete/)
    expect(stdout).toMatch(/would convert\s+45 JSON values/)
    expect(await snapshot(client, p)).toEqual(before)
  })

  it('swaps a value only while it still holds what was read, keeping its TTL (the script convert pipelines)', async () => {
    // The race itself (a write between convert's read and its swap) cannot be timed from outside
    // the binary, so the script that closes it is tested on its own.
    const client = redisClient()
    const swapper = defineSwap(redisClient())
    const key = `${uniquePrefix('convert-swap')}k`
    await client.set(key, '{"v":1}', 'PX', 120_000)
    const envelope = Buffer.from(encode({ v: 1 })) // ioredis would write a bare Uint8Array as "1,2,…"
    expect(await swapper.stowageSwap(Buffer.from(key), Buffer.from('{"v":0}'), envelope)).toBe(0)
    expect(await client.get(key)).toBe('{"v":1}')
    expect(await swapper.stowageSwap(Buffer.from(key), Buffer.from('{"v":1}'), envelope)).toBe(1)
    expect(decode((await client.getBuffer(key))!)).toEqual({ v: 1 })
    expect(await client.pttl(key)).toBeGreaterThan(119_000)
    await client.del(key)
    expect(await swapper.stowageSwap(Buffer.from(key), Buffer.from('{"v":1}'), envelope)).toBe(0)
    expect(await client.exists(key)).toBe(0)
  })

  it('stops on SIGINT with a partial report (exit 130), and a second run finishes the job', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert-sigint')
    const pipeline = client.pipeline()
    for (let i = 0; i < 1500; i++) pipeline.set(`${p}${i}`, JSON.stringify({ i, name: `item ${i}` }))
    await pipeline.exec()
    const { child, finished } = startCli(['convert', url, '--match', `${p}*`, '--rate', '300', '--batch', '30', '--json', '--progress'])
    await stderrShows(child, /\| [1-9][\d,]* converted/)
    child.kill('SIGINT')
    const first = await finished
    expect(first.code).toBe(130)
    const partial = JSON.parse(first.stdout)
    expect(partial.end).toBe('interrupted')
    expect(partial.converted).toBeGreaterThan(0)
    expect(partial.converted).toBeLessThan(1500)
    const rest = await runCli(['convert', url, '--match', `${p}*`, '--json'])
    expect(rest.code).toBe(0)
    const done = JSON.parse(rest.stdout)
    expect(done.converted + done.alreadyStowage).toBe(1500)
    expect(done.alreadyStowage).toBe(partial.converted)
    expect(decode((await client.getBuffer(`${p}1499`))!)).toEqual({ i: 1499, name: 'item 1499' })
  })

  it('needs --match, and fails cleanly without Redis', async () => {
    const usage = await runCli(['convert', inject('redisUrl')])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/required option '--match <pattern>' not specified/)
    const down = await runCli(['convert', 'redis://127.0.0.1:1', '--match', 'x*'])
    expect(down.code).toBe(3)
    expect(down.stderr).toMatch(/^stowage: STORE_ERROR: cannot reach Redis/)
    expect(down.stderr + usage.stderr).not.toMatch(STACK_LINE)
  })
})
