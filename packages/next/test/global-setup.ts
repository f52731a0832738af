import type { TestProject } from 'vitest/node'
import { findOrStartRedis } from '@stowage/redis-server'

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
  }
}

// REDIS_URL, else a Redis answering on 127.0.0.1:6379, else one of our own (findOrStartRedis).
export default async function setup(project: TestProject) {
  const redis = await findOrStartRedis()
  project.provide('redisUrl', redis.url)
  return () => redis.stop()
}
