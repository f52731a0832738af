import { createMemoryStore } from '@stowage/core'
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { Redis } from 'ioredis'
import { createStorage, restoreSnapshot } from 'unstorage'
import * as unstorage1170 from 'unstorage-1.17.0'
import { afterAll, beforeAll, inject } from 'vitest'
import { stowageDriver } from '../src/index.js'
import { describeDriverCases } from './driver-cases.js'

const base = () => `unstorage-test-${Math.random().toString(36).slice(2)}`

let raw: Redis
let redis: RedisStore
beforeAll(() => {
  raw = new Redis(inject('redisUrl'))
  redis = createRedisStore({ client: raw })
})
afterAll(async () => {
  await redis.clear('unstorage-test-')
  await raw.quit()
})

const memory = createMemoryStore()
describeDriverCases({ name: 'memory store, unstorage 1.17.6', createStorage, restoreSnapshot, createDriver: () => stowageDriver({ store: memory, base: base() }) })
describeDriverCases({ name: 'redis store, unstorage 1.17.6', createStorage, restoreSnapshot, createDriver: () => stowageDriver({ store: redis, base: base() }) })
describeDriverCases({
  name: 'redis store, unstorage 1.17.0',
  createStorage: unstorage1170.createStorage as never,
  restoreSnapshot: unstorage1170.restoreSnapshot as never,
  createDriver: () => stowageDriver({ store: redis, base: base() }),
})
