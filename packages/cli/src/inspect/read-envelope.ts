import { inspect, loadDictionary, StowageError } from '@stowage/core'
import { MANIFEST_MAGIC, createRedisStore } from '@stowage/redis'
import { invalidInput } from '../errors/report-failure.js'
import { UsageError } from '../errors/exit-codes.js'
import { readInput } from '../io/read-input.js'
import { connectRedis } from '../redis/connect.js'

/** Where the bytes came from, and what Redis says about their key. */
export interface EnvelopeSource {
  readonly kind: 'redis' | 'file' | 'stdin'
  /** The Redis URL (password hidden) or the file path. */
  readonly location: string
  readonly key?: string
  /** The hash field, for a bundle's field. */
  readonly field?: string
  readonly redis?: {
    /** Remaining time to live in ms, or `null` for a key without one. */
    readonly ttlMs: number | null
    /** `MEMORY USAGE` of the key (for a chunked value: of its manifest). */
    readonly memoryUsage: number | null
    /** Set for a value stored as chunks plus a manifest (FORMAT.md §6). */
    readonly chunked?: { readonly chunks: number; readonly totalLength: number }
    /** For an envelope compressed with a preset dictionary: whether this Redis holds it (`#dict:<id>`), and if not usable, why. */
    readonly dictionary?: { readonly inStore: 'yes' | 'no' | 'refused'; readonly reason?: string }
  }
}

/** The envelope's dictionary as this Redis holds it, for an envelope that names one. */
type FoundDictionary = { readonly bytes?: Uint8Array; readonly fact?: { readonly inStore: 'yes' | 'no' | 'refused'; readonly reason?: string } }

async function dictionaryOf(store: ReturnType<typeof createRedisStore>, bytes: Uint8Array, failure: (e: unknown) => Error): Promise<FoundDictionary> {
  let id: number | undefined
  try {
    id = inspect(bytes).dictionaryId
  } catch {
    return {}
  }
  if (id === undefined) return {}
  try {
    const found = await loadDictionary(store, id)
    return found === undefined ? { fact: { inStore: 'no' } } : { bytes: found, fact: { inStore: 'yes' } }
  } catch (e) {
    if (StowageError.isInstance(e) && e.code === 'CORRUPT') return { fact: { inStore: 'refused', reason: e.message } }
    throw failure(e)
  }
}

/**
 * Reads an envelope from Redis (`url` plus `key`, and `field` for a bundle's field), a file, or
 * standard input (`-`).
 * @param source - a redis:// URL, a path or `-`.
 * @param key - the key, with a Redis URL.
 * @param field - a field of a hash (a Stowage bundle), with a Redis URL.
 * @returns the bytes and where they came from.
 * @throws {StowageError} INVALID_ARGUMENT (no such key or file, a key of another type, a missing key argument); STORE_ERROR (Redis failed).
 */
export async function readEnvelope(source: string, key: string | undefined, field?: string): Promise<{ bytes: Uint8Array; source: EnvelopeSource; dictionary?: Uint8Array }> {
  if (!/^rediss?:\/\//.test(source)) {
    if (key !== undefined) throw new UsageError(`a key (${key}) is only taken with a Redis URL`)
    return { bytes: await readInput(source), source: { kind: source === '-' ? 'stdin' : 'file', location: source } }
  }
  if (key === undefined) throw new UsageError('inspect <redis-url> needs a key: stowage inspect redis://host:6379 <key>')
  const redis = await connectRedis(source)
  const store = createRedisStore({ client: redis.client, commandTimeout: 60_000 })
  try {
    const [type, raw, ttl, memory] = await Promise.all([
      redis.client.type(key),
      redis.client.getBuffer(key).catch(() => null),
      redis.client.pttl(key),
      redis.client.memory('USAGE', key) as Promise<number | null>,
    ]).catch((e: unknown) => {
      throw redis.failure(e)
    })
    if (type === 'none') {
      // The usual slip: a Cache stores `:` and `%` inside a key escaped, so that keys never reach into child namespaces.
      const hint = /:.*:/.test(key) ? ` (a Stowage Cache stores ':' and '%' inside its keys as %3A and %25: namespace app with key user:1 is app:user%3A1)` : ''
      throw invalidInput(`key ${JSON.stringify(key)} does not exist at ${redis.label}${hint}`)
    }
    if (type === 'hash') {
      // A Stowage bundle: each field is an envelope.
      if (field === undefined) {
        const [, some] = (await redis.client.hscan(key, '0', 'COUNT', 20)) as [string, string[]]
        const names = some.filter((_, i) => i % 2 === 0).slice(0, 10)
        throw invalidInput(`key ${JSON.stringify(key)} is a Redis hash (a Stowage bundle keeps one envelope per field): give a field, e.g. stowage inspect ${redis.label} ${key} ${names[0] ?? '<field>'} (fields: ${names.join(', ')}${names.length === 10 ? ', …' : ''})`)
      }
      const value = await redis.client.hgetBuffer(key, field).catch((e: unknown) => {
        throw redis.failure(e)
      })
      if (value === null) throw invalidInput(`the hash ${JSON.stringify(key)} has no field ${JSON.stringify(field)}`)
      const dict = await dictionaryOf(store, value, (e) => redis.failure(e))
      return { bytes: value, dictionary: dict.bytes, source: { kind: 'redis', location: redis.label, key, field, redis: { ttlMs: ttl >= 0 ? ttl : null, memoryUsage: memory, ...(dict.fact ? { dictionary: dict.fact } : {}) } } }
    }
    if (field !== undefined) throw invalidInput(`key ${JSON.stringify(key)} holds a Redis ${type}, not a hash: a field is only taken for a bundle`)
    if (type !== 'string' || raw === null) throw invalidInput(`key ${JSON.stringify(key)} holds a Redis ${type}, not a string: it cannot be an envelope`)
    let bytes: Uint8Array = raw
    let chunked: { chunks: number; totalLength: number } | undefined
    if (raw.length === 40 && MANIFEST_MAGIC.every((b, i) => raw[i] === b)) {
      chunked = { chunks: raw.readUInt32BE(24), totalLength: Number(raw.readBigUInt64BE(28)) }
      // The store reassembles the chunks and checks the manifest's CRC.
      const whole = await store.get(key).catch((e: unknown) => {
        throw redis.failure(e)
      })
      if (whole === undefined) throw invalidInput(`key ${JSON.stringify(key)} is a chunk manifest whose chunks are gone`)
      bytes = whole
    }
    const dict = await dictionaryOf(store, bytes, (e) => redis.failure(e))
    return {
      bytes,
      dictionary: dict.bytes,
      source: { kind: 'redis', location: redis.label, key, redis: { ttlMs: ttl >= 0 ? ttl : null, memoryUsage: memory, ...(chunked ? { chunked } : {}), ...(dict.fact ? { dictionary: dict.fact } : {}) } },
    }
  } finally {
    await redis.close()
  }
}
