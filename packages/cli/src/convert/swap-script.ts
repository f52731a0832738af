import type { Redis } from 'ioredis'

// Why a script and not WATCH/MULTI: a WATCH covers a whole transaction, so one key changed by the
// application would abort the writes of its whole batch, and WATCH needs a round trip per key
// before its MULTI (its state belongs to the connection, so batches cannot share a pipeline).
// A script compares and swaps each key atomically on the server, and many calls pipeline into one
// round trip. KEEPTTL (Redis >= 6.0) keeps the key's expiry exactly: no PTTL read and re-set, so no
// drift. The cost is sending the old value back for the comparison.
const SWAP_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
`

/** A client with the `stowageSwap(key, expected, replacement)` command defined. */
export type SwapClient = Redis & { stowageSwap(key: Buffer, expected: Buffer, replacement: Buffer): Promise<number> }

/**
 * Defines `stowageSwap(key, expected, replacement)` on the client (and its pipelines): sets the
 * key to `replacement`, keeping its TTL, only while it still holds `expected`; 1 when it did.
 * ioredis sends it with EVALSHA and loads it on NOSCRIPT.
 * @param client - the connection.
 * @returns the same client, typed with the command.
 */
export function defineSwap(client: Redis): SwapClient {
  client.defineCommand('stowageSwap', { numberOfKeys: 1, lua: SWAP_IF_UNCHANGED })
  return client as SwapClient
}
