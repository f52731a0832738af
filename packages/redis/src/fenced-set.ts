// A write under a lease (StoreSetOptions.fence): the SET happens only while the lease key still
// holds the writer's token, checked in the same script, so a holder whose lease lapsed and was
// taken by another cannot overwrite the newer holder's value. The lease key lies in the slot of
// the key it guards (redis-lease.ts names it so), as a script's keys must on a cluster.
import { checkStoreKey, StowageError, StowageErrorCode, type StoreFence } from '@stowage/core'
import { fromBuffer, type RedisCall } from './adapter.js'
import { SET_RETURNING_HEAD_FENCED } from './scripts.js'

/**
 * SET `key` under `fence`, returning the old value's head as `RedisAdapter.setHead` does.
 * @throws {StowageError} LEASE_LOST when the lease no longer holds the token (nothing written);
 *   INVALID_ARGUMENT for a malformed fence; STORE_ERROR when Redis fails.
 */
export async function setHeadFenced(call: RedisCall, key: string, value: Uint8Array, ttl: number | undefined, fence: StoreFence): Promise<Uint8Array | null> {
  checkStoreKey(fence.key)
  if (typeof fence.token !== 'string' || fence.token === '') throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'a fence token must be a non-empty string')
  const reply = await call('EVALSHA set (fenced)', (a) => a.evalScript(SET_RETURNING_HEAD_FENCED, [key, fence.key], [value, ttl === undefined ? '' : String(Math.ceil(ttl)), fence.token]))
  if (typeof reply === 'number') {
    throw new StowageError(StowageErrorCode.LEASE_LOST, `the lease on ${key} was lost before its value was stored: another holder took it, and its value stays`)
  }
  return fromBuffer(reply as Buffer | null)
}
