import type { TestProject } from 'vitest/node'
import { ping, startRedisCluster, startRedisServer } from '@stowage/redis-server'

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
    clusterNodes: Array<{ host: string; port: number }>
  }
}

// REDIS_URL if set; else a Redis already answering on 127.0.0.1:6379; else one of our own.
// Tests never FLUSH a server: each uses its own key prefix. The cluster is always our own.
export default async function setup(project: TestProject) {
  const stops: Array<() => Promise<void>> = []
  let url = process.env.REDIS_URL
  if (!url) {
    if (await ping('127.0.0.1', 6379)) url = 'redis://127.0.0.1:6379'
    else {
      const server = await startRedisServer()
      stops.push(() => server.stop())
      url = server.url
    }
  }
  const cluster = await startRedisCluster()
  stops.push(() => cluster.stop())
  project.provide('redisUrl', url)
  project.provide('clusterNodes', cluster.nodes)
  return async () => {
    await Promise.all(stops.map((stop) => stop()))
  }
}
