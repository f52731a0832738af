import { StowageError, StowageErrorCode, type InvalidationChannel } from '@stowage/core'
import type { Cluster, Redis } from 'ioredis'
import type { RedisClientType } from 'redis'
import { toBuffer } from './adapter.js'
import { isIoredis } from './adapter-ioredis.js'
import { isNodeRedis } from './adapter-node-redis.js'
import { withDeadline } from './deadline.js'
import { DEFAULT_COMMAND_TIMEOUT } from './redis-store.js'

/** Options of {@link createRedisInvalidation}. */
export interface RedisInvalidationOptions {
  /** The client to publish with (ioredis Redis or Cluster, node-redis); a duplicate of it subscribes. It stays yours. */
  readonly client: unknown
  /**
   * The pub/sub channel. Redis pub/sub ignores `SELECT`: a channel reaches every client of the
   * server, so applications that share a Redis must not share a channel. Defaults to
   * `'stowage:invalidate:<namespace>'` with `namespace`, else to `'stowage:invalidate'`
   * ({@link DEFAULT_INVALIDATION_CHANNEL}), which every application on the server that leaves
   * both out shares.
   */
  readonly channel?: string
  /**
   * The namespace of the caches that use this channel (give their `createCache({ namespace })`):
   * it names the default channel, so only caches of that namespace hear each other. Defaults to none.
   */
  readonly namespace?: string
  /** Longest wait for subscribing and for each publish, in ms. Defaults to 2000 (`DEFAULT_COMMAND_TIMEOUT`). */
  readonly timeout?: number
}

/** Default of {@link RedisInvalidationOptions.channel} without a `namespace`: shared by every application on the server that gives neither. */
export const DEFAULT_INVALIDATION_CHANNEL = 'stowage:invalidate'

/**
 * The channel {@link createRedisInvalidation} uses by default for caches of `namespace`.
 * @returns `'stowage:invalidate:<namespace>'`.
 */
export function invalidationChannelFor(namespace: string): string {
  return `${DEFAULT_INVALIDATION_CHANNEL}:${namespace}`
}

/** An {@link InvalidationChannel} over Redis pub/sub, with a `close()` that ends its subscriber connection. */
export type RedisInvalidation = InvalidationChannel & { close(): Promise<void> }

/**
 * Creates an invalidation channel over Redis pub/sub, resolved once its subscription is live:
 * give it to `createCache({ invalidation })` in every process, and a write or delete in one drops
 * the others' local copies. Messages are Stowage envelopes, the same bytes a browser sends over
 * BroadcastChannel (FORMAT.md, "Invalidation messages").
 *
 * Subscribing and each publish have a deadline (`timeout`): a paused Redis makes them reject with
 * STORE_ERROR, never hang; a publish that timed out may still be delivered if Redis resumes.
 * @throws {StowageError} INVALID_ARGUMENT for an unknown client, a bad timeout or an empty namespace; STORE_ERROR when subscribing fails or times out.
 */
export async function createRedisInvalidation(options: RedisInvalidationOptions): Promise<RedisInvalidation> {
  const { namespace } = options
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace.length === 0)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `namespace must be a non-empty string, got ${JSON.stringify(namespace)}`)
  }
  const channel = options.channel ?? (namespace === undefined ? DEFAULT_INVALIDATION_CHANNEL : invalidationChannelFor(namespace))
  const timeout = options.timeout ?? DEFAULT_COMMAND_TIMEOUT
  if (!(Number.isFinite(timeout) && timeout > 0)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `timeout must be a positive number of ms, got ${String(timeout)}`)
  const listeners = new Set<(message: Uint8Array) => void>()
  const gapListeners = new Set<() => void>()
  // Called when the subscriber connection drops, and again once it is subscribed anew: whatever
  // was published in between never arrived.
  const gap = () => {
    for (const listener of gapListeners) listener()
  }
  let down = false
  const lost = () => {
    if (down) return
    down = true
    gap()
  }
  const back = (resubscribed: () => Promise<unknown>) => {
    if (!down) return
    down = false
    resubscribed().then(gap, gap)
  }
  const deliver = (message: Buffer) => {
    const bytes = new Uint8Array(message.buffer, message.byteOffset, message.byteLength)
    for (const listener of listeners) listener(bytes)
  }
  const { client } = options
  let publish: (message: Uint8Array) => Promise<unknown>
  let stop: () => Promise<unknown>
  try {
    if (isIoredis(client)) {
      // A Cluster's duplicate is a Cluster; both subscribe and hear PUBLISH from any node.
      const subscriber = (client as { duplicate(): Redis | Cluster }).duplicate() as Redis
      subscriber.on('error', () => {}) // reconnects on its own; the gap listeners hear what was lost
      subscriber.on('messageBuffer', (from: Buffer, message: Buffer) => {
        if (from.toString() === channel) deliver(message)
      })
      await withDeadline(subscriber.subscribe(channel), timeout, `SUBSCRIBE ${channel}`).catch((e: unknown) => {
        subscriber.disconnect()
        throw e
      })
      // ioredis subscribes again by itself after reconnecting; subscribing once more waits for it.
      subscriber.on('close', lost)
      subscriber.on('ready', () => back(() => subscriber.subscribe(channel)))
      publish = (message) => (client as Redis).publish(channel, toBuffer(message))
      stop = () => subscriber.quit()
    } else if (isNodeRedis(client)) {
      const nodeClient = client as RedisClientType
      const subscriber = nodeClient.duplicate()
      subscriber.on('error', () => {})
      const subscribing = (async () => {
        await subscriber.connect()
        await subscriber.subscribe(channel, (message: Buffer) => deliver(message), true)
      })()
      await withDeadline(subscribing, timeout, `SUBSCRIBE ${channel}`).catch((e: unknown) => {
        subscriber.destroy()
        throw e
      })
      // node-redis subscribes again by itself once it is ready.
      subscriber.on('reconnecting', lost)
      subscriber.on('ready', () => back(async () => {}))
      publish = (message) => nodeClient.publish(channel, toBuffer(message))
      stop = () => subscriber.close()
    } else {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'client must be an ioredis Redis or Cluster, or a node-redis client')
    }
  } catch (e) {
    if (StowageError.isInstance(e)) throw e
    throw new StowageError(StowageErrorCode.STORE_ERROR, `subscribing to ${channel} failed`, { cause: e })
  }
  return {
    async publish(message) {
      try {
        await withDeadline(publish(message), timeout, `PUBLISH ${channel}`)
      } catch (e) {
        if (StowageError.isInstance(e)) throw e
        throw new StowageError(StowageErrorCode.STORE_ERROR, `publishing on ${channel} failed`, { cause: e })
      }
    },
    subscribe(listener, onGap) {
      listeners.add(listener)
      if (onGap) gapListeners.add(onGap)
      return () => {
        listeners.delete(listener)
        if (onGap) gapListeners.delete(onGap)
      }
    },
    async close() {
      listeners.clear()
      gapListeners.clear()
      await stop().catch(() => {})
    },
  }
}
