// Dictionaries live where the data lives (issue 19): a preset deflate dictionary is stored in the
// same store as the values, under `#dict:<id>` (its id, the CRC-32 the envelopes carry, as 8 hex
// digits) at the store's root. No cache key reaches it: a namespace never starts with `#`, and a
// cache's keys all start with its namespace. A Cache that meets an envelope whose dictionary its
// codec lacks loads it from there once, so a process that was never configured reads every value.
//
// The stored value is an envelope (never compressed) whose value is the dictionary's bytes: its
// CRC-32 covers them on the way, and the id is checked against the bytes before they are used. Two
// dictionaries with one id are told apart where it matters, at decode: envelopes of compression id
// 3 carry the CRC-32 of their inflated payload, and a wrong dictionary fails it (CHECKSUM_MISMATCH).
import type { Codec } from '../codec/codec.js'
import { crc32 } from '../codec/crc32.js'
import { inspect } from '../codec/envelope.js'
import type { CodecOptions } from '../codec/options.js'
import { DICTIONARY_COMPRESS_THRESHOLD, MAX_DICTIONARY_SIZE } from '../codec/options.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { Store } from '../stores/store.js'
import { wrapStore, type StoreCall } from '../stores/wrap-store.js'

/** Prefix of the store keys that hold dictionaries: `#dict:` then the id as 8 lowercase hex digits. */
export const DICTIONARY_KEY_PREFIX = '#dict:'
// A dictionary the store did not have is looked for again after this long, not on every read.
const MISS_RETRY_MS = 5_000
// Loaded dictionaries kept per cache; past it the oldest is forgotten (and loaded again if met).
const MAX_LOADED = 64

/** Options of the codec that writes and reads the stored dictionaries: one bin, never deflated. */
export const DICTIONARY_CODEC_OPTIONS: CodecOptions = Object.freeze({ compress: 'never', maxDepth: 1, maxItems: 1, maxBytes: 2 * MAX_DICTIONARY_SIZE })

const hex8 = (n: number) => n.toString(16).padStart(8, '0')

// The store calls that write values: before the first, a cache stores its own dictionaries.
const WRITES: ReadonlySet<StoreCall> = new Set(['set', 'setMany', 'setField'])

/** The store key of dictionary `id`. */
export function dictionaryKey(id: number): string {
  return DICTIONARY_KEY_PREFIX + hex8(id >>> 0)
}

/**
 * The dictionary stored as `bytes` under the key of `id`, checked: an envelope whose value is a
 * Uint8Array of 1 to 32 KiB whose CRC-32 is `id`.
 * @throws {StowageError} CORRUPT for bytes that are not an envelope of a dictionary, or of one with another id.
 */
export function readDictionary(codec: Codec, id: number, bytes: Uint8Array): Uint8Array {
  let value: unknown
  try {
    value = codec.decode<unknown>(bytes)
  } catch (e) {
    throw new StowageError(StowageErrorCode.CORRUPT, `the store's entry for dictionary ${hex8(id)} is not a readable envelope`, { cause: e })
  }
  if (!(value instanceof Uint8Array) || value.length === 0 || value.length > MAX_DICTIONARY_SIZE) {
    throw new StowageError(StowageErrorCode.CORRUPT, `the store's entry for dictionary ${hex8(id)} is not a dictionary (1 to ${MAX_DICTIONARY_SIZE} bytes)`)
  }
  if (crc32(value) !== id) throw new StowageError(StowageErrorCode.CORRUPT, `the store's dictionary ${hex8(id)} has bytes of another id (${hex8(crc32(value))}): refused`)
  return value
}

/**
 * Stores `dictionary` under its id in `store`, where every Cache over that store finds it when it
 * meets an envelope compressed with it. Storing the same dictionary again is harmless.
 * @param codec - a codec made with {@link DICTIONARY_CODEC_OPTIONS}.
 * @returns the dictionary's id (its CRC-32).
 * @throws {StowageError} INVALID_ARGUMENT for an empty dictionary or one over 32 KiB; the store's errors.
 */
export async function storeDictionary(store: Store, codec: Codec, dictionary: Uint8Array): Promise<number> {
  if (!(dictionary instanceof Uint8Array) || dictionary.length === 0 || dictionary.length > MAX_DICTIONARY_SIZE) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `a dictionary is a Uint8Array of 1 to ${MAX_DICTIONARY_SIZE} bytes`)
  }
  const id = crc32(dictionary)
  await store.set(dictionaryKey(id), codec.encode(dictionary))
  return id
}

/**
 * The dictionary stored under `id` in `store`, checked ({@link readDictionary}).
 * @param codec - a codec made with {@link DICTIONARY_CODEC_OPTIONS}.
 * @returns its bytes, or `undefined` when the store has none under that id.
 * @throws {StowageError} CORRUPT for an entry that is not that dictionary; the store's errors.
 */
export async function loadDictionary(store: Store, codec: Codec, id: number): Promise<Uint8Array | undefined> {
  const bytes = await store.get(dictionaryKey(id))
  return bytes === undefined ? undefined : readDictionary(codec, id >>> 0, bytes)
}

/** Why a dictionary could not be used: not in the store, damaged there, or the store failed. */
export type DictionaryOutcome = { readonly codec: Codec } | { readonly error: StowageError | undefined }

/**
 * The dictionaries one cache has loaded from its store, and codecs that hold them: `codec` reads
 * with the cache's own dictionaries and every loaded one; `writer` writes with the cache's first,
 * or with the dictionary it adopted (`autoDictionary`, see dictionary-trainer.ts).
 */
export class DictionaryBook {
  private readonly loading = new Map<number, Promise<Uint8Array | StowageError | undefined>>()
  private readonly misses = new Map<number, number>()
  // The dictionaries loaded from the store (or trained here), by id, oldest first.
  private readonly loaded = new Map<number, Uint8Array>()
  /** Reads every envelope of the cache's own and the loaded dictionaries. */
  codec: Codec
  /** Writes the cache's envelopes. */
  writer: Codec
  /** The id of the dictionary the cache adopted and writes with, if any. */
  writingId: number | undefined
  private readonly own: ReadonlySet<number>
  private published: Promise<void> | undefined
  private readonly envelopes: Codec

  /**
   * @param store - where the dictionaries are stored.
   * @param base - the cache's codec; its dictionaries are the cache's own.
   * @param make - makes a codec from options (the platform's createCodec).
   */
  constructor(
    private readonly storeOf: Store,
    private readonly base: Codec,
    private readonly make: (options: CodecOptions) => Codec,
  ) {
    this.envelopes = make(DICTIONARY_CODEC_OPTIONS)
    this.codec = base
    this.writer = base
    this.own = new Set(base.options.dictionaries.map((d) => crc32(d)))
  }

  /**
   * A codec that can decode `bytes` when `base` could not for want of its dictionary, loading the
   * dictionary from the store (once for concurrent callers).
   * @returns the codec; or the reason there is none (`undefined`: the bytes name no dictionary this book can find).
   */
  async codecFor(bytes: Uint8Array): Promise<DictionaryOutcome> {
    let id: number | undefined
    try {
      id = inspect(bytes).dictionaryId
    } catch {
      return { error: undefined }
    }
    if (id === undefined || this.own.has(id)) return { error: undefined }
    if (this.loaded.has(id)) return { codec: this.codec }
    const missed = this.misses.get(id)
    if (missed !== undefined && Date.now() - missed < MISS_RETRY_MS) return { error: undefined }
    let pending = this.loading.get(id)
    if (pending === undefined) {
      pending = this.load(id)
      this.loading.set(id, pending)
      void pending.finally(() => this.loading.delete(id))
    }
    const found = await pending
    if (found instanceof Uint8Array) return { codec: this.codec }
    return { error: found }
  }

  /**
   * Stores the cache's own dictionaries (once per book; again after a failure), so that readers
   * that were never configured with them find them.
   * @throws {StowageError} the store's errors.
   */
  publish(): Promise<void> {
    if (this.own.size === 0) return Promise.resolve()
    this.published ??= Promise.all(this.base.options.dictionaries.map((d) => storeDictionary(this.storeOf, this.envelopes, d))).then(
      () => undefined,
      (e: unknown) => {
        this.published = undefined
        throw e
      },
    )
    return this.published
  }

  /**
   * `store`, whose writes of values first store this cache's own dictionaries ({@link publish});
   * `store` itself when the cache has none.
   */
  guard(store: Store): Store {
    if (this.own.size === 0) return store
    return wrapStore(store, async (name, call) => {
      if (WRITES.has(name)) await this.publish()
      return call()
    })
  }

  private async load(id: number): Promise<Uint8Array | StowageError | undefined> {
    let dictionary: Uint8Array | undefined
    try {
      dictionary = await loadDictionary(this.storeOf, this.envelopes, id)
    } catch (e) {
      if (!StowageError.isInstance(e)) return new StowageError(StowageErrorCode.STORE_ERROR, `reading dictionary ${hex8(id)} failed`, { cause: e })
      // A damaged or forged entry is looked at again later, like a missing one; a store failure at the next read.
      if (e.code !== StowageErrorCode.STORE_ERROR) this.misses.set(id, Date.now())
      return e
    }
    if (dictionary === undefined) {
      this.misses.set(id, Date.now())
      return undefined
    }
    this.misses.delete(id)
    this.learn(id, dictionary)
    return dictionary
  }

  // Reads with dictionary `id` from now on (the cache's own it reads with already).
  private learn(id: number, dictionary: Uint8Array): void {
    if (this.own.has(id) || this.loaded.has(id)) return
    if (this.loaded.size >= MAX_LOADED) {
      // The oldest goes, never the one written with.
      for (const old of this.loaded.keys()) {
        if (old === this.writingId) continue
        this.loaded.delete(old)
        break
      }
    }
    this.loaded.set(id, dictionary)
    this.codec = this.make({ ...this.base.options, dictionaries: [...this.base.options.dictionaries, ...this.loaded.values()] })
  }

  /**
   * Stores `dictionary` beside the values, and reads with it.
   * @returns its id.
   * @throws {StowageError} the store's errors.
   */
  async store(dictionary: Uint8Array): Promise<number> {
    const id = await storeDictionary(this.storeOf, this.envelopes, dictionary)
    this.learn(id, dictionary)
    return id
  }

  /**
   * Writes with dictionary `id` from now on (first, before the cache's own), loading it from the store.
   * @returns whether the store holds it (else nothing changes).
   * @throws {StowageError} CORRUPT for a damaged entry; the store's errors.
   */
  async adopt(id: number): Promise<boolean> {
    const own = this.base.options.dictionaries.find((d) => crc32(d) === id)
    const dictionary = own ?? this.loaded.get(id) ?? (await loadDictionary(this.storeOf, this.envelopes, id))
    if (dictionary === undefined) return false
    this.learn(id, dictionary)
    this.writingId = id
    const others = this.base.options.dictionaries.filter((d) => d !== own)
    // Small values are where a dictionary pays: the dictionary codec's threshold, unless the cache's own is lower.
    const compressThreshold = Math.min(this.base.options.compressThreshold, DICTIONARY_COMPRESS_THRESHOLD)
    this.writer = this.make({ ...this.base.options, compressThreshold, dictionaries: [dictionary, ...others] })
    return true
  }
}
