// A lease per key in Redis, for stampede protection across processes: SET key token NX PX ms takes
// it, and a script deletes it only while it still holds our token (a lease that lapsed and was
// taken by another process is never given back by us).
import { StowageError, StowageErrorCode, type LoadLease } from '@stowage/core'
import type { Cluster, Redis } from 'ioredis'
import type { RedisClientType } from 'redis'
import { isIoredis } from './adapter-ioredis.js'
import { isNodeRedis } from './adapter-node-redis.js'
import { withDeadline } from './deadline.js'
import { DEFAULT_COMMAND_TIMEOUT } from './redis-store.js'

/** Options of {@link createRedisLease}. */
export interface RedisLeaseOptions {
  /** The client (ioredis Redis or Cluster, node-redis). It stays yours. */
  readonly client: unknown
  /** Prefix of the lease keys. Defaults to `'#lease:'` ({@link DEFAULT_LEASE_PREFIX}): `#` never starts a cache namespace. */
  readonly prefix?: string
  /** Longest wait for taking or giving back a lease, in ms. Defaults to 2000 (`DEFAULT_COMMAND_TIMEOUT`). */
  readonly timeout?: number
}

/** Default of {@link RedisLeaseOptions.prefix}. */
export const DEFAULT_LEASE_PREFIX = '#lease:'

const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"

function token(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * Creates a lease over Redis for `createCache({ lease })`: one process in a fleet runs a
 * `getOrSet` loader for a key, the others wait for its value. Taking and giving back have a deadline
 * (`timeout`): against a paused Redis they reject with STORE_ERROR (the cache then loads alone).
 * @throws {StowageError} INVALID_ARGUMENT for an unknown client or a bad timeout.
 */
export function createRedisLease(options: RedisLeaseOptions): LoadLease {
  const prefix = options.prefix ?? DEFAULT_LEASE_PREFIX
  const timeout = options.timeout ?? DEFAULT_COMMAND_TIMEOUT
  if (!(Number.isFinite(timeout) && timeout > 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `timeout must be a positive number of ms, got ${String(timeout)}`)
  const { client } = options
  let take: (key: string, value: string, ms: number) => Promise<boolean>
  let give: (key: string, value: string) => Promise<unknown>
  if (isIoredis(client)) {
    const c = client as Redis | Cluster
    take = async (key, value, ms) => (await c.set(key, value, 'PX', ms, 'NX')) === 'OK'
    give = (key, value) => c.eval(RELEASE, 1, key, value)
  } else if (isNodeRedis(client)) {
    const c = client as RedisClientType
    take = async (key, value, ms) => (await c.set(key, value, { PX: ms, NX: true })) === 'OK'
    give = (key, value) => c.eval(RELEASE, { keys: [key], arguments: [value] })
  } else {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'client must be an ioredis Redis or Cluster, or a node-redis client')
  }
  return {
    async acquire(key, ms) {
      const leaseKey = prefix + key
      const mine = token()
      if (!(await withDeadline(take(leaseKey, mine, Math.ceil(ms)), timeout, 'SET NX (lease)'))) return undefined
      return async () => {
        await withDeadline(give(leaseKey, mine), timeout, 'EVAL (lease release)')
      }
    },
  }
}
