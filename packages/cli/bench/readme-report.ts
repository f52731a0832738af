// The `stowage scan` report shown in the root README: 10,000 W1-100 JSON strings and the same
// 10,000 values as Stowage envelopes (the seed article's data), in a redis-server of its own.
// Run: pnpm --filter @stowage/cli build && pnpm --filter @stowage/cli readme:report
import { startRedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { load } from './load.js'
import { runBinary } from './run-binary.js'

const server = await startRedisServer()
try {
  const client = new Redis(server.url)
  await load(client, { prefix: 'article:', rows: 100, json: 10_000, envelopes: 10_000, strings: 0, hashes: 0 })
  await client.quit()
  const run = await runBinary(['scan', server.url, '--top', '5'])
  process.stdout.write(`$ stowage scan ${server.url} --top 5\n${run.stdout}`)
} finally {
  await server.stop()
}
