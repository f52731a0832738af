// Target (issue #13): `stowage scan` over 1,000,000 keys on loopback in < 60 s with RSS < 150 MB,
// progress shown throughout. Starts its own redis-server, loads it with pipelines, runs the real
// binary under /usr/bin/time -v. Run: pnpm --filter @stowage/cli build && pnpm --filter @stowage/cli bench:scan
import { startRedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { load } from './load.js'
import { runBinary } from './run-binary.js'

const KEYS = Number(process.env.KEYS ?? 1_000_000)
const server = await startRedisServer()
try {
  const client = new Redis(server.url)
  const loadStart = performance.now()
  // W1-10 values keep the server near 400 MB; the scan's cost is per key, not per byte.
  await load(client, { prefix: 'b:', rows: 10, json: KEYS * 0.4, envelopes: KEYS * 0.3, strings: KEYS * 0.29, hashes: KEYS * 0.01 })
  console.error(`loaded ${(await client.dbsize()).toLocaleString('en-US')} keys in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`)
  await client.quit()
  const run = await runBinary(['scan', server.url, '--progress', '--json'])
  const report = JSON.parse(run.stdout) as { keys: number; keysPerSecond: number; elapsedMs: number; end: string; jsonEstimate: unknown }
  console.log(JSON.stringify({ keys: report.keys, end: report.end, exit: run.code, wallSeconds: +run.seconds.toFixed(1), scanSeconds: report.elapsedMs / 1000, keysPerSecond: report.keysPerSecond, maxRssMb: +run.maxRssMb.toFixed(1) }, null, 2))
  const ok = run.code === 0 && report.keys === KEYS && run.seconds < 60 && run.maxRssMb < 150
  console.log(ok ? 'targets met: < 60 s, < 150 MB' : 'TARGETS MISSED')
  process.exitCode = ok ? 0 : 1
} finally {
  await server.stop()
}
