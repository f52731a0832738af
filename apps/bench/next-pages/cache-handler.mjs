// The handler under test, picked by BENCH_HANDLER when `next start` loads this module:
// - `stowage`: @stowage/next's createCacheHandler over @stowage/redis (its README's setup);
// - `forte`: @fortedigital/nextjs-cache-handler 3.3's redis-strings handler with its defaults (its README's Quick Start);
// - `forte-gzip`: the same with the gzip valueSerializer its README gives.
// REDIS_URL names the run's own redis-server.
import { gunzipSync, gzipSync } from 'node:zlib'

async function stowage() {
  const { createCacheHandler } = await import('@stowage/next')
  const { createRedisStore } = await import('@stowage/redis')
  return createCacheHandler({ store: createRedisStore({ url: process.env.REDIS_URL }), namespace: 'bench' })
}

async function forte(gzip) {
  const { CacheHandler } = await import('@fortedigital/nextjs-cache-handler')
  const { default: createRedisHandler } = await import('@fortedigital/nextjs-cache-handler/redis-strings')
  const { createClient } = await import('redis')
  const client = createClient({ url: process.env.REDIS_URL })
  await client.connect()
  const valueSerializer = gzip
    ? {
        serialize: (value) => gzipSync(JSON.stringify(value)).toString('base64'),
        deserialize: (stored) => JSON.parse(gunzipSync(Buffer.from(stored, 'base64')).toString('utf-8')),
      }
    : undefined
  CacheHandler.onCreation(() => ({ handlers: [createRedisHandler({ client, keyPrefix: 'bench:', valueSerializer })] }))
  return CacheHandler
}

const which = process.env.BENCH_HANDLER ?? 'stowage'
if (!['stowage', 'forte', 'forte-gzip'].includes(which)) throw new Error(`BENCH_HANDLER must be stowage, forte or forte-gzip, not ${which}`)
export default which === 'stowage' ? await stowage() : await forte(which === 'forte-gzip')
