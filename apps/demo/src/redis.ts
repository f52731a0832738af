// Where the demo's Redis comes from: REDIS_URL (which must answer); else 127.0.0.1:6379 if it
// answers; else a redis-server binary on the PATH, started on a free port and stopped on exit;
// else none (the embedded memory store).
import { ping, startRedisServer } from '@stowage/redis-server'

export interface RedisChoice {
  readonly url: string | undefined
  /** How it was found, for the banner. */
  readonly how: 'REDIS_URL' | 'localhost:6379' | 'started redis-server' | 'none'
  stop(): Promise<void>
}

/** @throws Error when REDIS_URL is set and does not answer. */
export async function chooseRedis(): Promise<RedisChoice> {
  const nothing = async () => {}
  const fromEnv = process.env.REDIS_URL
  if (fromEnv) {
    const { hostname, port } = new URL(fromEnv)
    if (await ping(hostname, Number(port || 6379), 1000)) return { url: fromEnv, how: 'REDIS_URL', stop: nothing }
    // Asked for this Redis: never quietly use (and write to) another one instead.
    throw new Error(`REDIS_URL=${fromEnv} does not answer. Start that Redis, fix REDIS_URL, or unset it to let the demo find or start one.`)
  }
  if (await ping('127.0.0.1', 6379)) return { url: 'redis://127.0.0.1:6379', how: 'localhost:6379', stop: nothing }
  try {
    const server = await startRedisServer({ timeout: 5_000 })
    return { url: server.url, how: 'started redis-server', stop: () => server.stop() }
  } catch {
    return { url: undefined, how: 'none', stop: nothing }
  }
}
