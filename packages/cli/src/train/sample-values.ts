// The values `stowage train` learns from: a uniform random sample of the string keys that match a
// pattern, each read as a value (a Stowage envelope decoded, chunked ones reassembled; a JSON
// string parsed); other strings, and the keys Stowage keeps for itself (tag generations, chunks,
// dictionaries), are skipped and counted.
import { createCodec, StowageError, type Codec } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import type { RedisConnection } from '../redis/connect.js'
import { Reservoir } from '../scan/reservoir.js'

/** What the sample holds, and what the scan passed over. */
export interface ValueSample {
  /** The sampled values, in random order. */
  readonly values: readonly unknown[]
  /** Matching string keys seen, Stowage's own apart. */
  readonly keys: number
  /** Keys Stowage keeps for itself (tag generations, chunks, dictionaries), passed over. */
  readonly reserved: number
  /** Sampled keys whose value was neither JSON (an object or array) the codec can hold nor an envelope this reader decodes, or was gone. */
  readonly unreadable: number
  /** Whether SIGINT stopped the scan early. */
  readonly interrupted: boolean
}

// Keys a Stowage Cache or store writes for itself, never values: tag generations, chunks, dictionaries.
const RESERVED = /#(tag|chunk|dict):/
const MAX_JSON_BYTES = 8 * 1024 * 1024
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function asValue(codec: Codec, bytes: Uint8Array): { value: unknown } | undefined {
  if (bytes[0] === 0xc1) {
    try {
      return { value: codec.decode(bytes) }
    } catch (e) {
      if (StowageError.isInstance(e)) return undefined
      throw e
    }
  }
  if (bytes.length > MAX_JSON_BYTES) return undefined
  try {
    const text = utf8.decode(bytes)
    if (!/^\s*[[{]/.test(text)) return undefined
    const value = JSON.parse(text) as unknown
    // A value the codec refuses (nested past maxDepth, say) is left out alone, as convert leaves it.
    codec.encode(value)
    return { value }
  } catch {
    return undefined
  }
}

/**
 * Samples up to `size` values from the string keys matching `match`.
 * @param redis - a connection.
 * @param options - `match` (SCAN pattern), `size` (the sample), `count` (SCAN COUNT), `signal` (stops early).
 * @returns the sample.
 * @throws {StowageError} STORE_ERROR when Redis fails.
 */
export async function sampleValues(redis: RedisConnection, options: { match: string; size: number; count: number; signal?: AbortSignal }): Promise<ValueSample> {
  const store = createRedisStore({ client: redis.client, commandTimeout: 60_000 })
  const codec = createCodec()
  const reservoir = new Reservoir<string, unknown>(options.size)
  let keys = 0
  let reserved = 0
  let unreadable = 0
  let cursor = '0'
  do {
    if (options.signal?.aborted) break
    let batch: string[]
    try {
      ;[cursor, batch] = (await redis.client.scan(cursor, 'MATCH', options.match, 'COUNT', options.count, 'TYPE', 'string')) as [string, string[]]
    } catch (e) {
      throw redis.failure(e)
    }
    const wanted: Array<{ key: string; slot: number }> = []
    for (const key of batch) {
      if (RESERVED.test(key)) {
        reserved++
        continue
      }
      keys++
      const slot = reservoir.offer(key)
      if (slot >= 0) wanted.push({ key, slot })
    }
    if (wanted.length === 0) continue
    let found: Array<Uint8Array | undefined>
    try {
      found = await store.getMany(wanted.map((w) => w.key))
    } catch (e) {
      throw redis.failure(e)
    }
    wanted.forEach(({ key, slot }, i) => {
      const bytes = found[i]
      const read = bytes === undefined ? undefined : asValue(codec, bytes)
      if (read !== undefined) return reservoir.measure(slot, key, read.value)
      unreadable++
      reservoir.discard(slot, key)
    })
  } while (cursor !== '0')
  return { values: reservoir.measurements(), keys, reserved, unreadable, interrupted: options.signal?.aborted === true }
}
