import type { TestProject } from 'vitest/node'
import { findOrStartRedis, startRedisCluster } from '@stowage/redis-server'

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
    clusterNodes: Array<{ host: string; port: number }>
  }
}

// REDIS_URL if set; else a Redis already answering on 127.0.0.1:6379; else one of our own.
// Tests never FLUSH a server: each uses its own key prefix. The cluster is always our own.
export default async function setup(project: TestProject) {
  const redis = await findOrStartRedis()
  const cluster = await startRedisCluster()
  project.provide('redisUrl', redis.url)
  project.provide('clusterNodes', cluster.nodes)
  return async () => {
    await Promise.all([redis.stop(), cluster.stop()])
  }
}
