import { createRedisStore } from '@stowage/redis'
import { defineNitroPlugin, useStorage } from 'nitropack/runtime'
import { stowageDriver } from '../../../src/index.js'

// The cache mount on Redis: every entry gets the driver's TTL (STOWAGE_TTL seconds) when Nitro gives none.
export default defineNitroPlugin(() => {
  const store = createRedisStore({ url: process.env.REDIS_URL as string })
  useStorage().mount('cache', stowageDriver({ store, base: process.env.STOWAGE_BASE, ttl: process.env.STOWAGE_TTL ? Number(process.env.STOWAGE_TTL) : undefined }))
})
