// Opening a stored entry: decode the envelope, check its tags are current, migrate an older schema
// version, validate against the key's schema. It reports what it found and never counts, emits
// or deletes: the cache does that with the answer.
import type { Codec, DecodedEnvelope, DecodeOptions } from '../codec/codec.js'
import { inspect } from '../codec/envelope.js'
import { CompressionId } from '../codec/format.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { Store } from '../stores/store.js'
import type { CacheOperation, CacheOptions, MissReason } from './cache-types.js'
import type { DictionaryBook } from './dictionary-book.js'
import { validated, type SchemaFinder } from './schemas.js'
import { readGenerations, tagKey, type TagBook } from './tags.js'

/** A value as read from the store or the local tier. */
export interface Entry {
  readonly value: unknown
  readonly freshUntil: number | undefined
  /** The tag stamp the entry was written with: tag → generation. */
  readonly tags?: ReadonlyMap<string, number>
}

/** What opening an entry needs, settled once per cache. */
export interface Opener {
  readonly codec: Codec
  readonly version: number
  readonly migrate: CacheOptions['migrate']
  readonly schemaFor: SchemaFinder | undefined
  /** Where the tags' generations are read, and how they are encoded. */
  readonly store: Store
  readonly messages: Codec
  readonly tags: TagBook
  /** Where dictionaries the codec lacks are loaded from (see dictionary-book.ts). */
  readonly dictionaries?: DictionaryBook
}

/**
 * The outcome: an entry; or a miss with its reason, the error to report (under `operation` when
 * it is not the caller's own), and whether the stored bytes are worthless and should be deleted;
 * or a store failure while checking the tags.
 */
export type Opened =
  | { readonly entry: Entry }
  | { readonly miss: MissReason; readonly error?: unknown; readonly operation?: CacheOperation; readonly drop?: boolean }
  | { readonly storeError: unknown }

// Why bytes that did not decode are a miss: damaged, or intact but beyond this reader.
function undecodable(e: unknown): MissReason {
  const code = StowageError.isInstance(e) ? e.code : undefined
  if (code === StowageErrorCode.UNSUPPORTED_VERSION || code === StowageErrorCode.UNSUPPORTED_TYPE) return 'unsupported'
  if (code === StowageErrorCode.LIMIT_EXCEEDED) return 'too-large'
  return 'corrupt'
}

/** The codec that reads this cache's entries: its own, with every dictionary it has loaded or trained. */
export function readingCodec(opener: Opener): Codec {
  return opener.dictionaries?.codec ?? opener.codec
}

// Decodes with the cache's codec, or, when the envelope names a dictionary the codec lacks, with
// one that has it, loaded from the store. A dictionary the store lacks, or holds damaged, leaves
// the codec's own error (UNSUPPORTED_TYPE), with the reason as its cause.
// An envelope stored uncompressed (which needs no dictionary) is decoded without a promise: the
// hot path of a server's reads, as small values are not deflated. A compressed one without blocking.
// `freeze`: the value is built deep-frozen (see DecodeOptions.freeze).
function decodeEnvelope(opener: Opener, bytes: Uint8Array, freeze: boolean): DecodedEnvelope<unknown> | Promise<DecodedEnvelope<unknown>> {
  const options = freeze ? FROZEN : undefined
  if (bytes[2] === CompressionId.NONE) return readingCodec(opener).decodeEnvelope(bytes, options)
  const { dictionaries } = opener
  if (dictionaries === undefined) return opener.codec.decodeEnvelopeAsync(bytes, options)
  return decodeWithDictionaries(dictionaries, bytes, options)
}

const FROZEN = { freeze: true } as const

async function decodeWithDictionaries(dictionaries: DictionaryBook, bytes: Uint8Array, options: DecodeOptions | undefined): Promise<DecodedEnvelope<unknown>> {
  try {
    return await dictionaries.codec.decodeEnvelopeAsync(bytes, options)
  } catch (e) {
    if (!StowageError.isInstance(e) || e.code !== StowageErrorCode.UNSUPPORTED_TYPE) throw e
    const found = await dictionaries.codecFor(bytes)
    if ('codec' in found) return await found.codec.decodeEnvelopeAsync(bytes, options)
    if (found.error === undefined) throw e
    throw new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `${e.message}; the store's copy could not be used: ${found.error.message}`, { cause: found.error })
  }
}

// Whether a stamp's generations are still its tags' current ones in the store (and learns them).
async function tagsCurrent(opener: Opener, prefix: string, stamp: ReadonlyMap<string, number>): Promise<boolean> {
  const tags = [...stamp.keys()]
  const keys = tags.map((tag) => tagKey(prefix, tag))
  const generations = await opener.tags.learning(keys, () => readGenerations(opener.store, opener.messages, keys))
  return tags.every((tag, i) => generations[i] === stamp.get(tag))
}

type StampCheck = { readonly miss: 'invalidated'; readonly drop: true } | { readonly storeError: unknown } | undefined

// Checks a tag stamp against the store: `undefined` when every tag is current.
async function checkStamp(opener: Opener, prefix: string, stamp: ReadonlyMap<string, number> | undefined): Promise<StampCheck> {
  if (stamp === undefined) return undefined
  try {
    // Deleted by tag: as worthless as damaged bytes.
    return (await tagsCurrent(opener, prefix, stamp)) ? undefined : { miss: 'invalidated', drop: true }
  } catch (e) {
    return { storeError: e }
  }
}

// The entry of a decoded envelope, its value passed through the key's schema when it has one
// (without a promise when it has none: the hot path of a server's reads).
function checked(opener: Opener, key: string, value: unknown, decoded: { freshUntil?: number; tags?: ReadonlyMap<string, number> }): Opened | Promise<Opened> {
  const schema = opener.schemaFor?.(key)
  if (schema === undefined) return { entry: { value, freshUntil: decoded.freshUntil, tags: decoded.tags } }
  return validated(schema, key, value).then((outcome) => ('error' in outcome ? { miss: 'invalid', error: outcome.error } : { entry: { value: outcome.value, freshUntil: decoded.freshUntil, tags: decoded.tags } }))
}

// Whether the value read for `key` may be built deep-frozen when the caller keeps it frozen: not
// when a schema or `migrate` gets it first (they may change what they are given).
function freezable(opener: Opener, key: string): boolean {
  return opener.migrate === undefined && opener.schemaFor?.(key) === undefined
}

/**
 * Opens the bytes stored under `key` (relative to `prefix`, the namespace and `:`): without a
 * promise when nothing needs one (no bytes; or bytes stored uncompressed, without tags, of the
 * cache's schema version, for a key without a schema).
 * @param frozen - the entry goes to an in-process tier that freezes it: its value may come built
 * deep-frozen (DecodeOptions.freeze), which costs less than freezing it afterwards.
 * @returns what was found; never throws for bad bytes, a failing `migrate` or schema.
 */
export function openEntry(opener: Opener, prefix: string, key: string, bytes: Uint8Array | undefined, frozen = false): Opened | Promise<Opened> {
  if (bytes === undefined) return { miss: 'absent' }
  let decoded
  try {
    decoded = decodeEnvelope(opener, bytes, frozen && freezable(opener, key))
  } catch (e) {
    return notDecoded(e)
  }
  if (decoded instanceof Promise) return decoded.then((d) => openDecoded(opener, prefix, key, d), notDecoded)
  return openDecoded(opener, prefix, key, decoded)
}

// Bytes that did not decode. Damaged bytes are worthless: dropped so the next read can refill them.
// Intact bytes this reader cannot use (a newer format, an extension or dictionary it lacks, over
// its limits) stay: during a rolling deploy they are what the new writers stored.
function notDecoded(e: unknown): Opened {
  const reason = undecodable(e)
  return { miss: reason, error: e, drop: reason === 'corrupt' }
}

// A decoded envelope: its tags checked against the store (when it has any), then its version.
function openDecoded(opener: Opener, prefix: string, key: string, decoded: DecodedEnvelope<unknown>): Opened | Promise<Opened> {
  if (decoded.tags === undefined) return openVersion(opener, key, decoded)
  return checkStamp(opener, prefix, decoded.tags).then((stale) => stale ?? openVersion(opener, key, decoded))
}

// A current envelope: migrated when it is of an older schema version, then checked.
function openVersion(opener: Opener, key: string, decoded: DecodedEnvelope<unknown>): Opened | Promise<Opened> {
  const version = decoded.schemaVersion ?? 0
  if (version > opener.version) return { miss: 'newer-version' }
  if (version === opener.version) return checked(opener, key, decoded.value, decoded)
  if (!opener.migrate) return { miss: 'older-version' }
  return migrated(opener, key, decoded, version)
}

async function migrated(opener: Opener, key: string, decoded: DecodedEnvelope<unknown>, version: number): Promise<Opened> {
  let value: unknown
  try {
    value = await opener.migrate!(decoded.value, version)
  } catch (e) {
    const error = new StowageError(StowageErrorCode.MIGRATION_FAILED, `migrate threw on an entry of version ${version}: ${String((e as Error)?.message ?? e)}`, { cause: e })
    return { miss: 'older-version', error, operation: 'migrate' }
  }
  return checked(opener, key, value, decoded)
}

/** What {@link openHeader} found: bytes fit to hand on as they are, with their fresh-until time. */
export type OpenedHeader =
  | { readonly bytes: Uint8Array; readonly freshUntil: number | undefined }
  | { readonly miss: MissReason; readonly error?: unknown; readonly drop?: boolean }
  | { readonly storeError: unknown }

/**
 * Checks stored bytes as {@link openEntry} does, from the header alone (no decode): an envelope
 * whose tags are all current. A header that does not read is damaged; a deleted tag makes it
 * invalidated; both are worthless and should be deleted.
 */
export async function openHeader(opener: Opener, prefix: string, bytes: Uint8Array | undefined): Promise<OpenedHeader> {
  if (bytes === undefined) return { miss: 'absent' }
  let header
  try {
    header = inspect(bytes)
  } catch (e) {
    const reason = undecodable(e)
    return { miss: reason, error: e, drop: reason === 'corrupt' }
  }
  return (await checkStamp(opener, prefix, header.tags)) ?? { bytes, freshUntil: header.freshUntil }
}

/**
 * The entry the bytes this cache just wrote hold, as any process reading them gets it: decoded
 * (never the writer's own object) and passed through the key's schema. Their tags were current
 * and their version is this cache's, so neither is checked.
 */
export async function openWritten(opener: Opener, key: string, bytes: Uint8Array): Promise<Opened> {
  let decoded
  try {
    decoded = await decodeEnvelope(opener, bytes, false)
  } catch (e) {
    return { miss: undecodable(e), error: e }
  }
  return checked(opener, key, decoded.value, decoded)
}
