import { encode } from '@stowage/core'
import type { RedisConnection } from '../redis/connect.js'
import { isReplyError } from '../redis/connect.js'
import type { Progress } from '../progress/progress.js'
import { classifyString } from './classify.js'
import { defineProbe, type Probe } from './probe-script.js'
import { RateLimit } from '../run/rate-limit.js'
import type { RunEnd } from '../run/run-end.js'
import { memoryWithLength } from './redis-memory.js'
import type { ScanStats } from './scan-stats.js'

/** JSON values larger than this are not re-encoded for the estimate (bounded memory); they are counted. */
export const MAX_SAMPLE_BYTES = 16 * 1024 * 1024


/** Options of {@link scanKeys}. */
export interface ScanKeysOptions {
  /** SCAN's MATCH pattern. Defaults to every key. */
  readonly match?: string
  /** SCAN's COUNT hint: keys per batch. */
  readonly count: number
  /** Keys per second at most; Infinity for no limit. */
  readonly rate: number
  /** Stops between batches when aborted. */
  readonly signal: AbortSignal
  readonly progress: Progress
}

type Reply = [Error | null, unknown]

/**
 * Walks the keyspace with SCAN (never KEYS), one read-only script call per batch (TYPE, MEMORY
 * USAGE, STRLEN and the first bytes of each key: probe-script.ts), and counts into `stats`. The next SCAN is sent
 * while a batch is being read, so Redis and this process work at the same time.
 * @param redis - the connection.
 * @param stats - where to count.
 * @param options - see {@link ScanKeysOptions}.
 * @returns how it ended, and the Redis failure when Redis went away (the counts so far stay in `stats`).
 */
export async function scanKeys(redis: RedisConnection, stats: ScanStats, options: ScanKeysOptions): Promise<{ end: RunEnd; error?: Error }> {
  const { client } = redis
  const limit = new RateLimit(options.rate, options.signal)
  const probe = defineProbe(client)
  const scan = (cursor: string) => {
    const promise = options.match === undefined ? client.scanBuffer(cursor, 'COUNT', options.count) : client.scanBuffer(cursor, 'MATCH', options.match, 'COUNT', options.count)
    promise.catch(() => {}) // awaited below; a batch that is never awaited (interrupted) must not crash the process
    return promise
  }
  try {
    let pending = scan('0')
    for (;;) {
      const [next, keys] = await pending
      const cursor = next.toString()
      if (cursor !== '0' && !options.signal.aborted) pending = scan(cursor)
      await readBatch(redis, stats, probe, keys)
      options.progress.update(stats.keys + stats.vanished)
      if (cursor === '0') return { end: 'complete' }
      if (options.signal.aborted) return { end: 'interrupted' }
      await limit.pace(stats.keys + stats.vanished)
      if (options.signal.aborted) return { end: 'interrupted' }
    }
  } catch (e) {
    return { end: isReplyError(e) ? 'redis-error' : 'redis-gone', error: redis.failure(e) }
  }
}

function check(reply: Reply | undefined): unknown {
  if (reply === undefined) throw new Error('a pipeline reply is missing')
  const [error, value] = reply
  if (error !== null && !isReplyError(error)) throw error
  return error === null ? value : undefined
}

async function readBatch(redis: RedisConnection, stats: ScanStats, probe: (keys: Buffer[]) => Promise<Probe[]>, keys: Buffer[]): Promise<void> {
  if (keys.length === 0) return
  const probes = await probe(keys)
  const toSample: Array<{ slot: number; key: string; raw: Buffer; memory: number }> = []
  for (let i = 0; i < keys.length; i++) {
    const { type, memory, length, prefix } = probes[i]!
    if (type === 'none') {
      stats.vanished++
      continue
    }
    const raw = keys[i]!
    const key = raw.toString()
    if (type !== 'string') {
      stats.add('other', memory, 0)
      stats.otherTypes[type] = (stats.otherTypes[type] ?? 0) + 1
      stats.top.offer({ key, kind: 'other', type, memory })
      continue
    }
    const found = classifyString(key, prefix, length)
    stats.add(found.kind, memory, length)
    stats.top.offer({ key, kind: found.kind, type, memory })
    if (found.header) stats.addEnvelope(found.header)
    if (found.manifest) stats.envelopes.manifests++
    if (found.chunk) stats.envelopes.chunks++
    if (found.kind === 'json') {
      const slot = stats.sample.offer(key)
      if (slot < 0) continue
      if (length > MAX_SAMPLE_BYTES) {
        stats.sample.discard(slot, key)
        stats.sampleTooLarge++
      } else toSample.push({ slot, key, raw, memory })
    }
  }
  if (toSample.length > 0) await measureSample(redis, stats, toSample)
}

async function measureSample(redis: RedisConnection, stats: ScanStats, entries: Array<{ slot: number; key: string; raw: Buffer; memory: number }>): Promise<void> {
  const pipeline = redis.client.pipeline()
  for (const { raw } of entries) pipeline.getBuffer(raw)
  const replies = ((await pipeline.exec()) ?? []) as Reply[]
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  entries.forEach(({ slot, key, memory }, i) => {
    const value = check(replies[i]) as Buffer | null | undefined
    if (value === null || value === undefined) return stats.sample.discard(slot, key)
    let parsed: unknown
    try {
      parsed = JSON.parse(utf8.decode(value)) as unknown
    } catch {
      stats.sampleInvalid++
      return stats.sample.discard(slot, key)
    }
    let envelope: Uint8Array
    try {
      envelope = encode(parsed)
    } catch {
      // Valid JSON the codec refuses (nested past maxDepth, …): convert leaves it as JSON too.
      stats.sampleRefused++
      return stats.sample.discard(slot, key)
    }
    stats.sample.measure(slot, key, { jsonBytes: value.length, stowageBytes: envelope.length, memory, memoryAsStowage: memoryWithLength(memory, value.length, envelope.length), value: parsed })
  })
}
