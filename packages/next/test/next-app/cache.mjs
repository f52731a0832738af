// One options object for both handlers, so they share a cache and its tags. The store and the
// namespace come from the environment the test starts each `next start` with.
import { createRedisStore } from '@stowage/redis'

export const options = { store: createRedisStore({ url: process.env.REDIS_URL }), namespace: process.env.STOWAGE_NAMESPACE ?? 'next-app' }
