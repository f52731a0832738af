// The public functions, bound to the platform the package's `#platform` import condition picks:
// native zlib on Node, fflate everywhere else. The two write bytes the other reads.
import { platform } from '#platform'
import type { Cache } from './cache/cache-api.js'
import { createCacheWith } from './cache/create-cache.js'
import { DICTIONARY_CODEC_OPTIONS, loadDictionary as loadDictionaryWith, readDictionary as readDictionaryWith, storeDictionary as storeDictionaryWith } from './cache/dictionary-book.js'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { CacheOptions, CacheSchema } from './cache/cache-types.js'
import type { CacheSchemas } from './cache/schemas.js'
import { bindApi } from './codec/api.js'
import type { Codec } from './codec/codec.js'
import type { CodecOptions } from './codec/options.js'
import { trainDictionaryWith, type TrainOptions } from './codec/train-dictionary.js'
import type { Store } from './stores/store.js'
import { crc32 } from './codec/crc32.js'
import { withoutTags as withoutTagsOf, withValidator as withValidatorOf } from './codec/envelope.js'
import type { HttpValidator } from './codec/validator.js'

const api = bindApi(platform)

/**
 * Creates a codec whose options are validated once: use it on hot paths.
 * @param options - see {@link CodecOptions}; every field is optional.
 * @returns a {@link Codec}.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export const createCodec: (options?: CodecOptions) => Codec = api.createCodec

/**
 * Encodes a value into a Stowage envelope: MessagePack, deflated when that pays, with a CRC-32.
 * @param value - plain objects, arrays, strings, numbers, bigint, booleans, null, undefined, Date,
 *   Map, Set, typed arrays, ArrayBuffer, DataView, RegExp, and classes you registered.
 * @param options - see {@link CodecOptions}. Pass the same object each time (or use {@link createCodec}) on hot paths.
 * @returns a new, exact-length Uint8Array. On Node it is a `Buffer` (a Uint8Array subclass, so the
 *   type says Uint8Array), which ioredis, node-redis, `fs` and sockets take as bytes:
 *   `redis.set(key, encode(value))` works as it is (in TypeScript, whose client types want a
 *   Buffer: `encode(value) as Buffer`). Elsewhere a plain Uint8Array.
 * @throws {StowageError} UNSUPPORTED_TYPE, CYCLE, LIMIT_EXCEEDED (the message names where in the value), INVALID_ARGUMENT.
 */
export const encode: (value: unknown, options?: CodecOptions) => Uint8Array = api.encode

/**
 * Decodes a Stowage envelope.
 * @param bytes - an envelope from {@link encode} (any Stowage codec, Node or browser, format version 1 or 2),
 *   as a Uint8Array or a Node `Buffer` (read a Redis key with ioredis's `getBuffer`, not `get`).
 * @param options - `maxBytes`, `maxDepth`, `maxItems`, `extensions` and `dictionaries` apply here.
 * @returns the value; `T` is your assertion, not a check.
 * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CHECKSUM_MISMATCH, CORRUPT, LIMIT_EXCEEDED, UNSUPPORTED_TYPE,
 *   INVALID_ARGUMENT (a string, or anything else but bytes: the message says how the bytes became text).
 */
export const decode: <T = unknown>(bytes: Uint8Array, options?: CodecOptions) => T = api.decode

/**
 * {@link encode} without blocking on large payloads: deflate runs in zlib's thread pool on Node
 * (same bytes as `encode`) and through the native CompressionStream in browsers from 256 KiB of
 * payload, in chunks, so no task runs long (other deflate bytes than `encode`'s; every reader reads both).
 * @returns as {@link encode}: a `Buffer` on Node, a plain Uint8Array elsewhere.
 * @throws {StowageError} as {@link encode}, as a rejection.
 */
export const encodeAsync: (value: unknown, options?: CodecOptions) => Promise<Uint8Array> = api.encodeAsync

/**
 * {@link decode} without blocking on large payloads: inflate runs in zlib's thread pool on Node and
 * through the native DecompressionStream in browsers from 16 KiB of payload. Accepts the same bytes as `decode`.
 * @throws {StowageError} as {@link decode}, as a rejection.
 */
export const decodeAsync: <T = unknown>(bytes: Uint8Array, options?: CodecOptions) => Promise<T> = api.decodeAsync

/**
 * Trains a preset deflate dictionary from sample values, for `createCodec({ dictionaries })`:
 * small values that share keys and text with the samples then deflate to a fraction of their
 * size (a 120-byte session token to about half). Train on values like the ones you will store,
 * ship the bytes with your code, and keep old dictionaries listed while data written with them
 * may still be read.
 * @param samples - values like the ones you will store (the more, the better; at most 8 MiB of
 *   their MessagePack is looked at, taken evenly).
 * @param options - `size`: the dictionary's size in bytes, 256 to 32768, default 16384; `extensions`
 *   if the samples hold your classes.
 * @returns the dictionary bytes (at most `size`; a `Buffer` on Node, as {@link encode}); the same samples always give the same bytes.
 * @throws {StowageError} INVALID_ARGUMENT for no samples or a bad size; as {@link encode} for a sample it cannot store.
 */
export const trainDictionary: (samples: readonly unknown[], options?: TrainOptions & Pick<CodecOptions, 'extensions'>) => Uint8Array = (samples, options) =>
  platform.handOut(trainDictionaryWith(platform, samples, options))

/**
 * The envelope without its tag stamp: the same payload bytes and other metadata, a new CRC. Tags
 * name generations kept in the store that wrote them; an envelope served to another cache (over
 * HTTP, say) leaves them behind. The payload is not read: the new CRC is the old one carried over
 * to the new header, so damaged bytes stay damaged and fail their check when decoded.
 * @param bytes - an envelope.
 * @returns `bytes` itself when it has no tags, else a new envelope (a `Buffer` on Node, as {@link encode}).
 * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT, INVALID_ARGUMENT.
 */
export const withoutTags: (bytes: Uint8Array) => Uint8Array = (bytes) => {
  const out = withoutTagsOf(bytes)
  return out === bytes ? bytes : platform.handOut(out)
}

/**
 * The envelope with an HTTP validator (the `ETag` or `Last-Modified` a server sent with it) kept
 * in its header, or without one: the same payload bytes and other metadata, a new CRC. A client
 * that stores an envelope in another form than it came in (inflated, say), or that got it from a
 * server other than Stowage's, keeps the server's validator so that it can still revalidate
 * (If-None-Match / If-Modified-Since). Decoding ignores it. The payload is not read: the new CRC
 * is the old one carried over to the new header, so damaged bytes stay damaged and fail their
 * check when decoded.
 * @param bytes - an envelope.
 * @param validator - `{ kind: 'etag' | 'last-modified', value }`, or `undefined` to drop one.
 * @returns a new envelope (a `Buffer` on Node, as {@link encode}), or `bytes` itself when nothing changes.
 * @throws {StowageError} BAD_MAGIC, TRUNCATED, CORRUPT; UNSUPPORTED_VERSION for bytes this build does not read and for a validator given to format version 1, which has no field for one; INVALID_ARGUMENT for a validator that is not 1 to 255 printable ASCII characters.
 */
export const withValidator: (bytes: Uint8Array, validator: HttpValidator | undefined) => Uint8Array = (bytes, validator) => {
  const out = withValidatorOf(bytes, validator)
  return out === bytes ? bytes : platform.handOut(out)
}

/**
 * Creates a cache: typed values in, compact envelopes in a {@link Store} (by default a new memory store).
 * @param options - see {@link CacheOptions}; every field is optional.
 * @returns a {@link Cache}; pass a {@link CacheSchema} to type its keys and values.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 * @example
 * const cache = createCache({ store: createMemoryStore(), namespace: 'app', ttl: 60_000 })
 * const posts = await cache.getOrSet('posts:home', loadPosts, { ttl: 30_000 })
 */
export function createCache<const V extends CacheSchemas>(options: CacheOptions & { readonly schemas: V }): Cache<{ -readonly [K in keyof V]: StandardSchemaV1.InferOutput<V[K]> }>
export function createCache<S extends CacheSchema = CacheSchema>(options?: CacheOptions): Cache<S>
export function createCache(options?: CacheOptions): Cache {
  return createCacheWith(api.createCodec, options, (values, size) => trainDictionaryWith(platform, values, { size }), platform.handOut)
}

/**
 * Stores a preset dictionary in `store` under its id (a key no cache key can reach), so that every
 * Cache over that store decodes values compressed with it, even in a process that was never given
 * it: a Cache that meets an envelope naming a dictionary its codec lacks loads it from the store
 * once, checks its bytes against the id, and keeps it. A Cache whose codec has `dictionaries`
 * stores them itself before its first write.
 * @param store - the store the values live in.
 * @param dictionary - the dictionary's bytes (see {@link trainDictionary}), 1 to 32 KiB.
 * @returns the dictionary's id, the CRC-32 the envelopes carry.
 * @throws {StowageError} INVALID_ARGUMENT for an empty dictionary or one over 32 KiB; the store's errors.
 * @example
 * await storeDictionary(store, trainDictionary(samples))
 */
export function storeDictionary(store: Store, dictionary: Uint8Array): Promise<number> {
  return storeDictionaryWith(store, (dictionaryCodec ??= api.createCodec(DICTIONARY_CODEC_OPTIONS)), dictionary)
}

/**
 * Reads the dictionary stored under `id` (see {@link storeDictionary}), checking that its bytes
 * have that id: what a Cache does when an envelope names a dictionary its codec lacks.
 * @param store - the store the values live in.
 * @param id - the dictionary's id, as `inspect(bytes).dictionaryId` gives it.
 * @returns the dictionary's bytes, or `undefined` when the store has none under that id.
 * @throws {StowageError} CORRUPT for an entry that is not a dictionary or holds one of another id; the store's errors.
 */
export function loadDictionary(store: Store, id: number): Promise<Uint8Array | undefined> {
  return loadDictionaryWith(store, (dictionaryCodec ??= api.createCodec(DICTIONARY_CODEC_OPTIONS)), id).then((d) => (d === undefined ? d : platform.handOut(d)))
}

/**
 * The dictionary that `bytes` (what {@link storeDictionary} keeps under `#dict:<id>`, and what a
 * server sends for it) hold, checked: an envelope of 1 to 32 KiB of bytes whose id is `id`.
 * @param bytes - the stored or received bytes.
 * @param id - the id they are meant to hold.
 * @returns the dictionary's bytes.
 * @throws {StowageError} CORRUPT for bytes that are not an envelope of a dictionary, or of one with another id.
 */
export function readDictionary(bytes: Uint8Array, id: number): Uint8Array {
  return platform.handOut(readDictionaryWith((dictionaryCodec ??= api.createCodec(DICTIONARY_CODEC_OPTIONS)), id >>> 0, bytes))
}

/**
 * The id of a dictionary: the CRC-32 of its bytes, which an envelope compressed with it names
 * (`inspect(bytes).dictionaryId`) and under which {@link storeDictionary} keeps it.
 * @param dictionary - the dictionary's bytes.
 * @returns the id, an unsigned 32-bit number.
 */
export function dictionaryId(dictionary: Uint8Array): number {
  return crc32(dictionary)
}
let dictionaryCodec: Codec | undefined
