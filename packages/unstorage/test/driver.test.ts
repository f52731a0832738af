import { createMemoryStore } from '@stowage/core'
import { createRedisStore, type RedisStore } from '@stowage/redis'
import { Redis } from 'ioredis'
import * as unstorageCatalog from 'unstorage'
import * as unstorageLowest from 'unstorage-1.17.0'
import { afterAll, beforeAll, inject } from 'vitest'
import { stowageDriver } from '../src/index.js'
import { describeDriverCases } from './driver-cases.js'
import { installedVersion } from './installed-version.js'

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

// The driver cases on both ends of the peer range this workspace installs: the lowest release
// (an npm: alias; test/peer-range.test.ts checks it is the range's lowest) and the catalog's.
const unstorages = [
  { version: installedVersion('unstorage-1.17.0'), createStorage: unstorageLowest.createStorage as never, restoreSnapshot: unstorageLowest.restoreSnapshot as never },
  { version: installedVersion('unstorage'), createStorage: unstorageCatalog.createStorage, restoreSnapshot: unstorageCatalog.restoreSnapshot },
]
const memory = createMemoryStore()
for (const { version, createStorage, restoreSnapshot } of unstorages) {
  describeDriverCases({ name: `memory store, unstorage ${version}`, createStorage, restoreSnapshot, createDriver: () => stowageDriver({ store: memory, base: base() }) })
  describeDriverCases({ name: `redis store, unstorage ${version}`, createStorage, restoreSnapshot, createDriver: () => stowageDriver({ store: redis, base: base() }) })
}
