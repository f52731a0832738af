// How one namespace writes: tag stamps read, the value encoded, the store written, and the change
// mirrored in this process (see Changes) and told to the others (the invalidation channel). Used by
// the façade (cache.ts) and its helpers; it reports to the namespace's observer and never calls back into them.
import type { CacheOperation } from './cache-types.js'
import type { CacheObserver } from './cache-observer.js'
import type { Landed } from './changes.js'
import type { Claim } from './claims.js'
import type { EncodedEnvelope } from '../codec/codec.js'
import { inspect } from '../codec/envelope.js'
import type { StoreFence } from '../stores/store.js'
import { openWritten, readingCodec, type Entry } from './entry-opener.js'
import { encodeInvalidation, splitInvalidation, type InvalidationMessage } from './invalidation.js'
import { storeKey } from './keys.js'
import { storeTtl, type WriteSettings } from './load-settings.js'
import type { Shared } from './shared.js'
import { stampTags } from './tags.js'

/** The writes of one namespace. */
export class Writes {
  constructor(
    private readonly shared: Shared,
    private readonly prefix: string,
    private readonly observer: CacheObserver,
  ) {}

  /**
   * `value` as this cache's envelope, with its fresh-until time and tag stamp.
   * @throws {StowageError} UNSUPPORTED_TYPE, CYCLE, LIMIT_EXCEEDED from the codec.
   */
  encode(value: unknown, freshUntil: number | undefined, tags?: ReadonlyMap<string, number>): Promise<EncodedEnvelope> {
    // With `autoDictionary`, the writer holds the trained dictionary once adopted, and every value written is offered to the trainer.
    const { version, opener, trainer } = this.shared
    const writer = opener.dictionaries?.writer ?? this.shared.codec
    const encoded = writer.encodeEnvelopeAsync(value, { schemaVersion: version === 0 ? undefined : version, freshUntil, tags })
    if (trainer === undefined) return encoded
    return encoded.then((e) => (trainer.offer(e, (error) => this.observer.failed('train', undefined, error)), e))
  }

  /**
   * The tag stamps of entries about to be written, with their store TTLs (one store round trip for all their tags).
   * @throws what the store throws.
   */
  stampsFor(tagsOf: ReadonlyArray<readonly string[] | undefined>, ttlsOf: ReadonlyArray<number | undefined>): Promise<Array<ReadonlyMap<string, number> | undefined>> {
    return stampTags(this.shared.store, this.shared.messages, this.shared.tags, this.prefix, tagsOf, ttlsOf, this.shared.given)
  }

  /**
   * Encodes and stores a value; `stamp` is its tags' generations when the caller read them already,
   * `claim` a loader's claim on the key (nothing is stored once another change superseded it).
   * @returns the entry kept for readers in this process (see `keepable`), if any.
   * @throws {StowageError} from the codec; STORE_ERROR with `writeErrors: 'throw'`, unless `returnAnyway`.
   */
  async write(
    key: string,
    value: unknown,
    settings: WriteSettings,
    operation: CacheOperation,
    returnAnyway: boolean,
    stamp?: ReadonlyMap<string, number>,
    claim?: Claim,
  ): Promise<Entry | undefined> {
    const { ttl, staleFor, grace, tags } = settings
    const lifetime = storeTtl(settings)
    if (tags !== undefined && stamp === undefined) {
      try {
        stamp = (await this.stampsFor([tags], [lifetime]))[0]
      } catch (e) {
        this.observer.writeFailed(operation, key, e, returnAnyway)
        return undefined
      }
    }
    // The fresh-until time tells readers when the stale and grace periods start.
    const freshUntil = (staleFor === undefined && grace === undefined) || ttl === undefined ? undefined : Math.ceil(Date.now() + ttl)
    const encoded = await this.encode(value, freshUntil, stamp)
    const kept = await this.keepable(key, encoded, operation)
    if (claim?.superseded) return undefined
    return (await this.put(key, storeKey(this.prefix, key), encoded, lifetime, kept, operation, returnAnyway, { value }, settings.fence)) ? kept : undefined
  }

  /**
   * Stores one envelope and mirrors it (see `changed`): claims on the key end before and after the
   * store takes it; the local tier keeps `kept` only if no other change came meanwhile.
   * `counted` is the value for the stats (none for bytes stored as they are); `fence`, the lease
   * the value was loaded under (see StoreSetOptions.fence).
   * @returns whether it was stored.
   * @throws {StowageError} STORE_ERROR with `writeErrors: 'throw'`, unless `returnAnyway`.
   */
  async put(
    key: string,
    full: string,
    encoded: EncodedEnvelope,
    ttl: number | undefined,
    kept: Entry | undefined,
    operation: CacheOperation,
    returnAnyway: boolean,
    counted?: { value: unknown },
    fence?: StoreFence,
  ): Promise<boolean> {
    const { changes, store } = this.shared
    const own = changes.writing(full)
    try {
      const writing = store.set(full, encoded.bytes, { ttl, fence })
      this.shared.recent?.record(full, writing)
      await writing
    } catch (e) {
      changes.failed(own)
      this.observer.writeFailed(operation, key, e, returnAnyway)
      return false
    }
    this.observer.wrote(key, counted?.value, encoded, counted !== undefined)
    this.changed('set', [{ full, kept, own, size: encoded.bytes.length, ttl }])
    return true
  }

  /**
   * What this process keeps of a value it writes: the entry any process reading the bytes gets (a
   * decoded copy, never the caller's object, through the key's schema), when there is a local tier
   * to keep it in or a schema whose output the caller should get. A value that fails its schema is
   * kept nowhere: it reads as a miss here as everywhere else, and an error event says why.
   * Without a schema the bytes are decoded only when a reader here first asks for the value.
   * @throws nothing: a failure is an error event.
   */
  async keepable(key: string, encoded: EncodedEnvelope, operation: CacheOperation): Promise<Entry | undefined> {
    const { local, opener } = this.shared
    if (opener.schemaFor?.(key) === undefined) {
      if (local === undefined) return undefined
      const codec = readingCodec(opener)
      const { freshUntil, tags } = inspect(encoded.bytes)
      const options = { freeze: local.freezes }
      return local.lazy(() => codec.decode(encoded.bytes, options), freshUntil, tags)
    }
    const opened = await openWritten(opener, key, encoded.bytes)
    if ('entry' in opened) return opened.entry
    if ('error' in opened && opened.error !== undefined) this.observer.failed(operation, key, opened.error)
    return undefined
  }

  /**
   * After the store took a change: mirrors it in this process (see Changes) and tells the others.
   * A written value is kept as decoded (`kept`, with its envelope's `size`); bytes stored without
   * their value only drop the local copy. Deleted tags reach local copies through the tag book (see Reads.read).
   * @throws nothing: a failed publish is an error event.
   */
  changed(op: InvalidationMessage['op'], entries: readonly Landed[], since?: number): void {
    if (op !== 'tag') this.shared.changes.landed(op, entries)
    announce(this.shared, op, entries.map((e) => e.full), since, (e) => this.observer.failed(op === 'tag' ? 'deleteByTag' : op, entries[0]?.full, e))
  }
}

/**
 * Tells the other processes on the channel (if any) of a change of `keys`, in messages of at most
 * MAX_KEYS_PER_MESSAGE keys; `onError` gets a failed publish.
 */
export function announce(shared: Shared, op: InvalidationMessage['op'], keys: readonly string[], since: number | undefined, onError: (error: unknown) => void): void {
  const { channel } = shared
  if (!channel) return
  for (const part of splitInvalidation({ origin: shared.origin, op, keys, since })) channel.publish(encodeInvalidation(shared.messages, part)).catch(onError)
}
