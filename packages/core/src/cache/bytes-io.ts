// Envelopes in and out as bytes, without the value in between: what `fetchCached` and a server hand
// on (getBytes, setBytes), and what one receives from elsewhere (acceptBytes). The façade (cache.ts)
// checks the arguments; this works through the namespace's reads, writes and observer, never through the façade.
import type { AcceptBytesOptions } from './cache-types.js'
import type { CacheObserver } from './cache-observer.js'
import type { Codec } from '../codec/codec.js'
import { inspect, withoutTags, type EnvelopeInfo } from '../codec/envelope.js'
import { wantsDeflate } from '../codec/options.js'
import { invalidArgument } from '../errors/make.js'
import { checkTtl } from '../stores/validate.js'
import { unusable } from './cache-errors.js'
import { claimOf } from './claims.js'
import { openEntry, openHeader, type Opened } from './entry-opener.js'
import { storeKey } from './keys.js'
import type { Reads } from './reads.js'
import type { Shared } from './shared.js'
import type { Writes } from './writes.js'

/** The bytes in and out of one namespace; keys are checked by the caller. */
export class BytesIo {
  constructor(
    private readonly shared: Shared,
    private readonly prefix: string,
    private readonly reads: Reads,
    private readonly writes: Writes,
    private readonly observer: CacheObserver,
  ) {}

  /**
   * The envelope stored under `key` as stored, by the rules of `get` read from its header: an entry
   * of a deleted tag is gone (and dropped).
   * @throws {StowageError} STORE_ERROR with `readErrors: 'throw'`.
   */
  async get(key: string): Promise<Uint8Array | undefined> {
    const full = storeKey(this.prefix, key)
    const { claims, store, opener } = this.shared
    const claim = claims.begin(full)
    let bytes: Uint8Array | undefined
    try {
      bytes = await store.get(full)
    } catch (e) {
      claims.end(claim)
      return this.observer.readFailed(key, e, 'get', false)
    }
    const opened = await openHeader(opener, this.prefix, bytes)
    claims.end(claim)
    if ('bytes' in opened) return this.shared.handOut(opened.bytes)
    if ('storeError' in opened) return this.observer.readFailed(key, opened.storeError, 'get', false)
    if (opened.drop) this.reads.drop(claim, () => store.delete(full))
    return undefined
  }

  /**
   * Stores an envelope as it is under `key`, its header checked.
   * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED for bytes that are not an envelope; INVALID_ARGUMENT for a bad TTL; STORE_ERROR with `writeErrors: 'throw'`.
   */
  async set(key: string, envelope: Uint8Array, ttl: number | undefined): Promise<void> {
    checkTtl(ttl)
    const { payloadLength } = inspect(envelope)
    const full = storeKey(this.prefix, key)
    this.shared.changes.starting([full])
    await this.writes.put(key, full, { bytes: envelope, payloadLength }, ttl, undefined, 'set', false)
  }

  /**
   * Opens an envelope received from elsewhere as `get` would, stores it (without its tag stamp,
   * inflated when {@link keptInflated} says so) unless its key changed since the claim, and
   * returns its value.
   * @throws {StowageError} the decode codes; UNSUPPORTED_VERSION, SCHEMA_MISMATCH, MIGRATION_FAILED;
   *   INVALID_ARGUMENT for a bad TTL or `inflate`, or a claim on another key or from another cache; STORE_ERROR with `writeErrors: 'throw'`.
   */
  async accept(key: string, envelope: Uint8Array, options: AcceptBytesOptions | undefined): Promise<unknown> {
    const full = storeKey(this.prefix, key)
    const { claims, changes, opener } = this.shared
    // Bytes that were on their way when the key was written or cleared (a sign-out) stay out.
    const given = options?.claim === undefined ? undefined : claimOf(options.claim, full, claims)
    const claim = given ?? claims.begin(full)
    let opened: Opened
    let bytes: Uint8Array
    const ttl = options?.ttl ?? this.shared.ttl
    try {
      checkTtl(ttl)
      bytes = withoutTags(envelope)
      // The codec this cache writes with now: with autoDictionary, one with a dictionary once adopted.
      if (keptInflated(opener.dictionaries?.writer ?? opener.codec, inspect(bytes), options?.inflate)) bytes = await inflatedOr(opener.codec, bytes)
      // To be kept in the in-process tier, as a read's value is (see Reads.readStore).
      opened = await openEntry(opener, this.prefix, key, bytes, this.shared.local?.keepsFrozen(bytes.length, ttl) === true)
      if (!('entry' in opened)) throw unusable(opened, this.shared.version)
    } finally {
      claims.end(claim)
    }
    if (!claim.superseded) {
      changes.starting([full])
      await this.writes.put(key, full, { bytes, payloadLength: inspect(bytes).payloadLength }, ttl, opened.entry, 'set', false)
    }
    return opened.entry.value
  }
}

/**
 * Whether a received envelope is kept inflated: when `asked`, else when this cache's codec would
 * not have deflated a payload of its size (in browsers, under 256 KiB), so that every later read
 * decodes it where it lies instead of inflating it again (in JavaScript, in a browser). Only plain
 * deflate: an envelope deflated against a dictionary is kept as it came.
 */
function keptInflated(codec: Codec, info: EnvelopeInfo, asked: boolean | undefined): boolean {
  if (asked !== undefined && typeof asked !== 'boolean') throw invalidArgument(`the inflate option must be a boolean, got ${typeof asked}`)
  if (info.compression !== 'deflate-raw') return false
  if (asked !== undefined) return asked
  return !wantsDeflate(codec.options, info.payloadLength)
}

// The envelope inflated; bytes that do not inflate are handed back as they are, for the opening
// that follows to say what is wrong with them as `get` would.
async function inflatedOr(codec: Codec, bytes: Uint8Array): Promise<Uint8Array> {
  try {
    return await codec.inflateEnvelopeAsync(bytes)
  } catch {
    return bytes
  }
}
