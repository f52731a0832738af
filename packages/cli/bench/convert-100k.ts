// Target (issue #13): `stowage convert` of 100,000 JSON keys (the seed article's W1-100 arrays)
// keeps every TTL within 1 s and reports the measured memory saved; a second run converts nothing.
// Starts its own redis-server, loads it with pipelines, runs the real binary under /usr/bin/time -v.
// Run: pnpm --filter @stowage/cli build && pnpm --filter @stowage/cli bench:convert
import { startRedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { load } from './load.js'
import { runBinary } from './run-binary.js'

const KEYS = Number(process.env.KEYS ?? 100_000)
const server = await startRedisServer()

async function expiryTimes(client: Redis): Promise<number[]> {
  const out: number[] = []
  for (let start = 0; start < KEYS; start += 10_000) {
    const pipeline = client.pipeline()
    for (let i = start; i < Math.min(KEYS, start + 10_000); i++) pipeline.pexpiretime(`w1:json:${i}`)
    for (const [, t] of (await pipeline.exec()) ?? []) out.push(t as number)
  }
  return out
}

async function usedMemory(client: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1])
}

try {
  const client = new Redis(server.url)
  await load(client, { prefix: 'w1:', rows: 100, json: KEYS, envelopes: 0, strings: 0, hashes: 0, ttl: 3600 })
  // Spread the expiry times so a TTL reset (to any one value) would show.
  for (let start = 0; start < KEYS; start += 10_000) {
    const pipeline = client.pipeline()
    for (let i = start; i < Math.min(KEYS, start + 10_000); i++) pipeline.pexpire(`w1:json:${i}`, 600_000 + i * 37)
    await pipeline.exec()
  }
  const expiresBefore = await expiryTimes(client)
  const memoryBefore = await usedMemory(client)
  const first = await runBinary(['convert', server.url, '--match', 'w1:*', '--json', '--progress'])
  const report = JSON.parse(first.stdout)
  const expiresAfter = await expiryTimes(client)
  const memoryAfter = await usedMemory(client)
  const drift = Math.max(...expiresAfter.map((t, i) => Math.abs(t - expiresBefore[i]!)))
  const second = await runBinary(['convert', server.url, '--match', 'w1:*', '--json'])
  const again = JSON.parse(second.stdout)
  await client.quit()
  const result = {
    keys: KEYS,
    converted: report.converted,
    exit: first.code,
    seconds: +first.seconds.toFixed(1),
    keysPerSecond: Math.round(KEYS / first.seconds),
    maxRssMb: +first.maxRssMb.toFixed(1),
    maxTtlDriftMs: drift,
    valueBytes: { before: report.bytesBefore, after: report.bytesAfter },
    memoryUsageOfKeys: { before: report.memoryBefore, after: report.memoryAfter, saved: report.memoryBefore - report.memoryAfter },
    redisUsedMemory: { before: memoryBefore, after: memoryAfter, saved: memoryBefore - memoryAfter },
    secondRun: { converted: again.converted, alreadyStowage: again.alreadyStowage, seconds: +second.seconds.toFixed(1) },
  }
  console.log(JSON.stringify(result, null, 2))
  const ok = first.code === 0 && report.converted === KEYS && drift < 1000 && again.converted === 0 && again.alreadyStowage === KEYS
  console.log(ok ? 'targets met: every TTL kept within 1 s, second run converts nothing' : 'TARGETS MISSED')
  process.exitCode = ok ? 0 : 1
} finally {
  await server.stop()
}
