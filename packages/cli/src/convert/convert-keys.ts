import type { Codec } from '@stowage/core'
import { StowageError, StowageErrorCode } from '@stowage/core'
import type { Progress } from '../progress/progress.js'
import type { RedisConnection } from '../redis/connect.js'
import { isReplyError } from '../redis/connect.js'
import { RateLimit } from '../run/rate-limit.js'
import type { RunEnd } from '../run/run-end.js'
import { INVALID_LIST_SIZE, type ConvertStats } from './convert-stats.js'
import { planValue } from './plan-value.js'
import { defineSwap, type SwapClient } from './swap-script.js'

/** Options of {@link convertKeys}. */
export interface ConvertKeysOptions {
  readonly match: string
  /** Keys per batch (SCAN COUNT and pipeline size). */
  readonly batch: number
  /** Keys per second at most; Infinity for no limit. */
  readonly rate: number
  /** Read and encode, write nothing. */
  readonly dryRun: boolean
  /** The codec that writes the envelopes (one with a dictionary, for --dictionary). Defaults to the default codec. */
  readonly codec?: Codec
  readonly signal: AbortSignal
  readonly progress: Progress
}

type Reply = [Error | null, unknown]

function isRedisFailure(e: unknown): boolean {
  if (StowageError.isInstance(e)) return e.code === StowageErrorCode.STORE_ERROR
  return !(e instanceof TypeError || e instanceof RangeError || e instanceof SyntaxError || e instanceof ReferenceError)
}

function check(reply: Reply | undefined): unknown {
  if (reply === undefined) throw new Error('a pipeline reply is missing')
  const [error, value] = reply
  if (error !== null && !isReplyError(error)) throw error
  return error === null ? value : undefined
}

/**
 * Rewrites the JSON string values of the keys matching a pattern as Stowage envelopes, batch by
 * batch: GET and MEMORY USAGE in one pipeline, encode, then one compare-and-swap script per key
 * (keeping its TTL, only if unchanged) in a second pipeline, and MEMORY USAGE again. Envelopes are
 * recognised and skipped, so an interrupted run can simply be run again.
 * @param redis - the connection.
 * @param stats - where to count.
 * @param options - see {@link ConvertKeysOptions}.
 * @returns how it ended, and the Redis failure when Redis went away or refused a command.
 * @throws what is not a Redis failure (a fault of the CLI), rather than blame Redis for it.
 */
export async function convertKeys(redis: RedisConnection, stats: ConvertStats, options: ConvertKeysOptions): Promise<{ end: RunEnd; error?: Error }> {
  const client = defineSwap(redis.client)
  const limit = new RateLimit(options.rate, options.signal)
  let cursor = '0'
  try {
    do {
      const [next, keys] = await client.scanBuffer(cursor, 'MATCH', options.match, 'COUNT', options.batch)
      cursor = next.toString()
      stats.scanned += keys.length
      if (keys.length > 0) await convertBatch(client, stats, keys, options.dryRun, options.codec)
      options.progress.update(stats.scanned, `${stats.converted.toLocaleString('en-US')} converted, ${stats.alreadyStowage.toLocaleString('en-US')} already Stowage, ${(stats.invalid + stats.keptAsJson).toLocaleString('en-US')} refused`)
      if (cursor === '0') return { end: 'complete' }
      if (options.signal.aborted) return { end: 'interrupted' }
      await limit.pace(stats.scanned)
    } while (!options.signal.aborted)
    return { end: 'interrupted' }
  } catch (e) {
    // Only Redis is blamed for Redis: a value never throws here (planValue), and anything else is a fault of the CLI, reported as such.
    if (!isRedisFailure(e)) throw e
    return { end: isReplyError(e) ? 'redis-error' : 'redis-gone', error: redis.failure(e) }
  }
}

async function convertBatch(client: SwapClient, stats: ConvertStats, keys: Buffer[], dryRun: boolean, codec: Codec | undefined): Promise<void> {
  const read = client.pipeline()
  for (const key of keys) {
    read.getBuffer(key)
    read.memory('USAGE', key)
  }
  const replies = ((await read.exec()) ?? []) as Reply[]
  const writes: Array<{ key: Buffer; before: Buffer; after: Uint8Array; memory: number }> = []
  keys.forEach((key, i) => {
    const [error] = replies[2 * i] ?? [null]
    const value = check(replies[2 * i]) as Buffer | null | undefined
    const memory = (check(replies[2 * i + 1]) as number | null | undefined) ?? 0
    if (error !== null) return void stats.notStrings++ // WRONGTYPE: a hash, list, …
    if (value === null || value === undefined) return void stats.changedMeanwhile++ // deleted or expired since SCAN
    const plan = planValue(value, codec)
    if (plan.action === 'already-stowage') return void stats.alreadyStowage++
    if (plan.action === 'counter') return void stats.counters++
    if (plan.action === 'invalid') {
      stats.invalid++
      if (stats.invalidKeys.length < INVALID_LIST_SIZE) stats.invalidKeys.push({ key: key.toString(), reason: plan.reason })
      return
    }
    if (plan.action === 'keep-json') {
      stats.keptAsJson++
      if (stats.keptAsJsonKeys.length < INVALID_LIST_SIZE) stats.keptAsJsonKeys.push({ key: key.toString(), reason: plan.reason })
      return
    }
    writes.push({ key, before: value, after: plan.envelope, memory })
  })
  if (dryRun) {
    for (const w of writes) count(stats, w.before.length, w.after.length, w.memory, 0)
    return
  }
  if (writes.length === 0) return
  const swap = client.pipeline() as unknown as { stowageSwap(key: Buffer, expected: Buffer, replacement: Buffer): void; memory(sub: 'USAGE', key: Buffer): void; exec(): Promise<Reply[] | null> }
  for (const w of writes) {
    swap.stowageSwap(w.key, w.before, Buffer.from(w.after.buffer, w.after.byteOffset, w.after.byteLength))
    swap.memory('USAGE', w.key)
  }
  const swapped = (await swap.exec()) ?? []
  writes.forEach((w, i) => {
    // A script error (say, a Redis older than 6.0 without KEEPTTL) stops the run: it would fail for every key.
    const failed = swapped[2 * i]?.[0]
    if (failed) throw failed
    const done = check(swapped[2 * i])
    if (done !== 1) return void stats.changedMeanwhile++
    count(stats, w.before.length, w.after.length, w.memory, (check(swapped[2 * i + 1]) as number | null | undefined) ?? 0)
  })
}

function count(stats: ConvertStats, before: number, after: number, memoryBefore: number, memoryAfter: number): void {
  stats.converted++
  stats.bytesBefore += before
  stats.bytesAfter += after
  stats.memoryBefore += memoryBefore
  stats.memoryAfter += memoryAfter
}
