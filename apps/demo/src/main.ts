// `pnpm demo`: finds or starts a Redis (or says it uses memory), serves the demo, stops cleanly on Ctrl-C.
import { chooseRedis } from './redis.js'
import { startDemo } from './server.js'

let redis: Awaited<ReturnType<typeof chooseRedis>>
try {
  redis = await chooseRedis()
} catch (e) {
  console.error(`\n  Stowage demo: ${(e as Error).message}\n`)
  process.exit(1)
}
const demo = await startDemo({ redisUrl: redis.url, port: Number(process.env.PORT ?? 3000) })
const line = '─'.repeat(72)
console.log(line)
console.log(`  Stowage demo: ${demo.url}`)
if (redis.url) console.log(`  Caching in Redis at ${redis.url} (${redis.how}).`)
else {
  console.log('  No Redis reachable: caching in memory (the embedded store).')
  console.log('  To use Redis: set REDIS_URL, or install redis-server (apt-get install redis-server), and restart.')
}
// pnpm 12 starts each child in a process group of its own, so a signal to `pnpm demo`'s group
// (or to pnpm alone, run in the background) may never reach this process: its pid is the sure way.
console.log(`  Ctrl-C to stop (from elsewhere: kill ${process.pid}).`)
console.log(line)

let stopping = false
async function stop() {
  if (stopping) return
  stopping = true
  console.log('\nstopping…')
  await demo.close()
  await redis.stop()
  process.exit(0)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
