// A lease per key in Redis, for stampede protection across processes: SET NX PX with a random
// token takes it, and a script deletes it only while it still holds our token (a lease that lapsed
// and was taken by another process is never given back by us). The token is also a fence: the
// cache stores the loaded value through the store's fenced SET, which writes only while the
// lease still holds the token (fenced-set.ts), so a holder that outlived its lease cannot
// overwrite the value of the holder that came after it.
//
// The lease key is the prefix, then the guarded key, then, when that key has no hash tag, ':' and
// four characters that bring it to the key's slot (slot-suffix.ts): a fenced SET reads the lease
// in its script, and on a cluster a script's keys must share one slot.
import { checkOptionNames, StowageError, StowageErrorCode, type LeaseRelease, type LoadLease } from '@stowage/core'
import type { RedisAdapter } from './adapter.js'
import { ioredisAdapter, isIoredis } from './adapter-ioredis.js'
import { isNodeRedis, nodeRedisAdapter } from './adapter-node-redis.js'
import { withDeadline } from './deadline.js'
import { crc16, hasHashTag, keySlot } from './key-slot.js'
import { DEFAULT_COMMAND_TIMEOUT } from './redis-store.js'
import { slotSuffix } from './slot-suffix.js'

/** Options of {@link createRedisLease}. */
export interface RedisLeaseOptions {
  /** The client (ioredis Redis or Cluster, node-redis client or cluster). It stays yours. */
  readonly client: unknown
  /** Prefix of the lease keys, without `{` or `}`. Defaults to `'#lease:'` ({@link DEFAULT_LEASE_PREFIX}): `#` never starts a cache namespace. */
  readonly prefix?: string
  /** Longest wait for taking or giving back a lease, in ms. Defaults to 2000 (`DEFAULT_COMMAND_TIMEOUT`). */
  readonly timeout?: number
  /**
   * Whether a value loaded under the lease is stored only while the lease is still its holder's.
   * The lease and the store must then use the same Redis (server or cluster, and database): turn
   * it off for a lease kept elsewhere, whose keys the store would never find. Defaults to true.
   */
  readonly fence?: boolean
}

/** Default of {@link RedisLeaseOptions.prefix}. */
export const DEFAULT_LEASE_PREFIX = '#lease:'

const TAKE = "if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 else return 0 end"
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"

const utf8 = new TextEncoder()

function token(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * The key of the lease on `key`: in `key`'s hash slot (see above).
 * @param prefix - without braces, so that `key`'s hash tag stays the name's.
 */
export function leaseKey(prefix: string, key: string): string {
  const name = prefix + key
  return hasHashTag(key) ? name : `${name}:${slotSuffix(crc16(utf8.encode(`${name}:`)), keySlot(key))}`
}

function invalid(message: string): StowageError {
  return new StowageError(StowageErrorCode.INVALID_ARGUMENT, message)
}

/**
 * Creates a lease over Redis for `createCache({ lease })`: one process in a fleet runs a
 * `getOrSet` loader for a key, the others wait for its value. Taking and giving back have a deadline
 * (`timeout`): against a paused Redis they reject with STORE_ERROR (the cache then loads alone).
 * With `fence` (the default), each lease it gives carries a fence: the value is stored only while
 * the lease is still its holder's, else the write rejects with LEASE_LOST.
 * @throws {StowageError} INVALID_ARGUMENT for an unknown client, a bad timeout or a prefix with braces.
 */
export function createRedisLease(options: RedisLeaseOptions): LoadLease {
  checkOptionNames('createRedisLease', options, ['client', 'prefix', 'timeout', 'fence'] satisfies ReadonlyArray<keyof RedisLeaseOptions>)
  const prefix = options.prefix ?? DEFAULT_LEASE_PREFIX
  const timeout = options.timeout ?? DEFAULT_COMMAND_TIMEOUT
  const fence = options.fence ?? true
  if (!(Number.isFinite(timeout) && timeout > 0)) throw invalid(`timeout must be a positive number of ms, got ${String(timeout)}`)
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) throw invalid('prefix must be a string without { or } (the lease must lie in the slot of its key)')
  const { client } = options
  let adapter: RedisAdapter
  if (isIoredis(client)) adapter = ioredisAdapter(client)
  else if (isNodeRedis(client)) adapter = nodeRedisAdapter(client)
  else throw invalid('client must be an ioredis Redis or Cluster, or a node-redis client or cluster')
  return {
    async acquire(key, ms) {
      const name = leaseKey(prefix, key)
      const mine = token()
      const taken = await withDeadline(adapter.evalScript(TAKE, [name], [mine, String(Math.ceil(ms))]), timeout, 'SET NX (lease)')
      if (Number(taken) !== 1) return undefined
      const release = async () => {
        await withDeadline(adapter.evalScript(RELEASE, [name], [mine]), timeout, 'EVAL (lease release)')
      }
      return (fence ? Object.assign(release, { fence: { key: name, token: mine } }) : release) as LeaseRelease
    },
  }
}
