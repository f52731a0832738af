// Fills a Redis with pipelines of SETs: the seed article's W1 rows as JSON strings and as Stowage
// envelopes (w1() from apps/bench), plus plain strings and a few hashes.
import { encode } from '@stowage/core'
import { w1 } from '@stowage/bench/workloads'
import type { Redis } from 'ioredis'

export interface LoadPlan {
  /** JSON strings of W1-`rows`. */
  readonly json: number
  /** The same values as envelopes. */
  readonly envelopes: number
  /** Short plain strings (counters, tokens). */
  readonly strings: number
  /** Small hashes. */
  readonly hashes: number
  /** Rows per W1 value. */
  readonly rows: number
  /** TTL in seconds for the JSON keys, if any. */
  readonly ttl?: number
  readonly prefix: string
}

export async function load(client: Redis, plan: LoadPlan): Promise<void> {
  const value = w1(plan.rows)
  const json = JSON.stringify(value)
  const envelope = Buffer.from(encode(value))
  const batch = 5_000
  const total = plan.json + plan.envelopes + plan.strings + plan.hashes
  for (let start = 0; start < total; start += batch) {
    const pipeline = client.pipeline()
    for (let i = start; i < Math.min(total, start + batch); i++) {
      if (i < plan.json) {
        if (plan.ttl) pipeline.set(`${plan.prefix}json:${i}`, json, 'EX', plan.ttl)
        else pipeline.set(`${plan.prefix}json:${i}`, json)
      } else if (i < plan.json + plan.envelopes) pipeline.set(`${plan.prefix}stowage:${i}`, envelope)
      else if (i < plan.json + plan.envelopes + plan.strings) pipeline.set(`${plan.prefix}counter:${i}`, String(i))
      else pipeline.hset(`${plan.prefix}hash:${i}`, 'name', `user ${i}`, 'visits', String(i))
    }
    await pipeline.exec()
  }
}
