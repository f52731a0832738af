import type { TestProject } from 'vitest/node'
import { ping, startRedisServer } from '@stowage/redis-server'

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
  }
}

// REDIS_URL if set; else a Redis already answering on 127.0.0.1:6379; else one of our own.
// Tests never FLUSH a server: each uses its own key prefix.
export default async function setup(project: TestProject) {
  let url = process.env.REDIS_URL
  let stop: (() => Promise<void>) | undefined
  if (!url) {
    if (await ping('127.0.0.1', 6379)) url = 'redis://127.0.0.1:6379'
    else {
      const server = await startRedisServer()
      stop = () => server.stop()
      url = server.url
    }
  }
  project.provide('redisUrl', url)
  return async () => {
    await stop?.()
  }
}
