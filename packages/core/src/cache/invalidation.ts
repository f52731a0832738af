import type { Codec } from '../codec/codec.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { CodecOptions } from '../codec/options.js'
import { inspect } from '../codec/envelope.js'

/**
 * A channel shared by caches in several processes or tabs (Redis pub/sub, BroadcastChannel):
 * when one of them writes or deletes, the others drop their local copies. It carries
 * {@link InvalidationMessage}s as bytes (an envelope; see FORMAT.md).
 */
export interface InvalidationChannel {
  /** Sends a message to every other subscriber. */
  publish(message: Uint8Array): Promise<void>
  /**
   * Calls `listener` with each message from others, and `onGap` (when given) whenever messages
   * may have been lost (the subscription dropped and came back), so local copies can be dropped.
   * @returns a function that stops both.
   */
  subscribe(listener: (message: Uint8Array) => void, onGap?: () => void): () => void
  /** Releases the channel's resources (a subscriber connection). */
  close?(): Promise<void>
}

/**
 * What changed: full store keys (namespace included); for `clear` the cleared prefixes; for
 * `tag` the store keys of deleted tags (`namespace:#tag:<tag>`).
 */
export interface InvalidationMessage {
  /** The publishing cache, so it can ignore its own messages. */
  readonly origin: string
  readonly op: 'set' | 'delete' | 'clear' | 'tag'
  readonly keys: readonly string[]
  /**
   * For `clear`: when it began (ms since the epoch, the publisher's clock). A subscriber deletes
   * again what it wrote under the cleared prefixes since then, which may have landed after it.
   */
  readonly since?: number
}

const VERSION = 1

/** At most this many keys go in one message; a bigger batch is announced in several. */
export const MAX_KEYS_PER_MESSAGE = 4096

/**
 * Options for the codec that reads and writes invalidation messages. Anyone who can publish on
 * the channel reaches every subscriber, so the limits are strict: a map of a list of strings
 * (depth 2), {@link MAX_KEYS_PER_MESSAGE} keys, 8 MiB. A hostile message then costs a subscriber
 * a millisecond or two to refuse, not seconds. Messages are never deflated.
 */
export const INVALIDATION_CODEC_OPTIONS: CodecOptions = Object.freeze({
  compress: 'never',
  maxDepth: 2,
  maxItems: MAX_KEYS_PER_MESSAGE + 8,
  maxBytes: 8 * 1024 * 1024,
})

/**
 * Encodes a message as an envelope of `{ v: 1, origin, op, keys }` (and `since` when given). Use a codec made with
 * {@link INVALIDATION_CODEC_OPTIONS}, and at most {@link MAX_KEYS_PER_MESSAGE} keys (see {@link splitInvalidation}).
 * @throws {StowageError} LIMIT_EXCEEDED when the message passes the codec's limits.
 */
export function encodeInvalidation(codec: Codec, message: InvalidationMessage): Uint8Array {
  const { origin, op, keys, since } = message
  return codec.encode(since === undefined ? { v: VERSION, origin, op, keys } : { v: VERSION, origin, op, keys, since })
}

/** Splits a message into messages of at most {@link MAX_KEYS_PER_MESSAGE} keys each. */
export function splitInvalidation(message: InvalidationMessage): InvalidationMessage[] {
  if (message.keys.length <= MAX_KEYS_PER_MESSAGE) return [message]
  const out: InvalidationMessage[] = []
  for (let i = 0; i < message.keys.length; i += MAX_KEYS_PER_MESSAGE) out.push({ ...message, keys: message.keys.slice(i, i + MAX_KEYS_PER_MESSAGE) })
  return out
}

/**
 * Decodes a message; `undefined` for anything that is not a version-1 message, including bytes
 * the codec refuses and compressed envelopes (messages are written uncompressed, so a compressed
 * one is not a message, and inflating it would let a few kilobytes ask every subscriber for
 * megabytes of work). Use a codec made with {@link INVALIDATION_CODEC_OPTIONS}.
 */
export function decodeInvalidation(codec: Codec, bytes: Uint8Array): InvalidationMessage | undefined {
  let value: unknown
  try {
    if (inspect(bytes).compression !== 'none') return undefined
    value = codec.decode(bytes)
  } catch {
    return undefined
  }
  const m = value as { v?: unknown; origin?: unknown; op?: unknown; keys?: unknown; since?: unknown }
  if (
    typeof m !== 'object' || m === null || m.v !== VERSION || typeof m.origin !== 'string' ||
    (m.op !== 'set' && m.op !== 'delete' && m.op !== 'clear' && m.op !== 'tag') || !Array.isArray(m.keys) || !m.keys.every((k) => typeof k === 'string')
  ) {
    return undefined
  }
  const since = typeof m.since === 'number' && Number.isFinite(m.since) ? m.since : undefined
  return since === undefined ? { origin: m.origin, op: m.op, keys: m.keys as string[] } : { origin: m.origin, op: m.op, keys: m.keys as string[], since }
}

/**
 * An {@link InvalidationChannel} over a `BroadcastChannel`: between tabs and workers of one
 * origin in a browser, or between threads of one Node process.
 * @param name - the channel name; caches that should hear each other use the same one. Defaults to `'stowage'`.
 * @returns the channel; `close()` closes the BroadcastChannel.
 * @throws {StowageError} UNSUPPORTED_RUNTIME where there is no BroadcastChannel (Cloudflare Workers).
 */
export function createBroadcastInvalidation(name = 'stowage'): InvalidationChannel {
  if (typeof BroadcastChannel !== 'function') {
    throw new StowageError(StowageErrorCode.UNSUPPORTED_RUNTIME, 'this runtime has no BroadcastChannel: give the cache another InvalidationChannel (createRedisInvalidation, or your own)')
  }
  const channel = new BroadcastChannel(name)
  const listeners = new Set<(message: Uint8Array) => void>()
  channel.onmessage = (event: MessageEvent) => {
    if (event.data instanceof Uint8Array) for (const listener of listeners) listener(event.data)
  }
  return {
    async publish(message) {
      channel.postMessage(message)
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    async close() {
      listeners.clear()
      channel.close()
    },
  }
}
