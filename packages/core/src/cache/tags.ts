// Tags: `deleteByTag` never lists or deletes entries. Each tag has a generation, a random uint32
// kept in the store under `namespace:#tag:<tag>` (no user key or child namespace can take that
// name: keys have their `:` escaped, namespace segments have no `#`). Where the store can
// `ensureMany`, that key lives as long as the longest-lived entry written with the tag. A tagged entry's envelope
// carries the generation of each of its tags when it was written (the tag stamp, FORMAT.md §1);
// deleting a tag gives it a new generation, and a read that finds a stamped generation that is no
// longer current treats the entry as gone. So a process that missed the announcement still sees
// the deletion on its next read from the store, and nothing is scanned.
import type { Codec } from '../codec/codec.js'
import { checkTag, MAX_TAGS } from '../codec/tag-stamp.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { Store, StoreEntry } from '../stores/store.js'

/** What the book knows of a tag an announcement said was deleted: no stamp can match it. */
const INVALIDATED = -1

/** The store key of a tag's generation under `prefix` (a namespace followed by `:`). */
export function tagKey(prefix: string, tag: string): string {
  return `${prefix}#tag:${tag}`
}

/**
 * Checks the tags of a call.
 * @returns them without repeats.
 * @throws {StowageError} INVALID_ARGUMENT for anything but an array of 1 to 255 valid tags (see `checkTag`).
 */
export function checkTags(tags: unknown): string[] {
  if (!Array.isArray(tags)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'tags must be an array of strings')
  const unique = [...new Set(tags as unknown[])]
  if (unique.length < 1 || unique.length > MAX_TAGS) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `give 1 to ${MAX_TAGS} tags, got ${unique.length}`)
  for (const tag of unique) checkTag(tag)
  return unique as string[]
}

/** A new generation for a tag: random, so writers in several processes need no counter. */
export function newGeneration(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] as number
}

// Stores entries in one round trip where the store can batch.
async function setAll(store: Store, entries: readonly StoreEntry[]): Promise<void> {
  if (store.setMany) await store.setMany(entries)
  else await Promise.all(entries.map(({ key, value, ttl }) => store.set(key, value, { ttl })))
}

// A stored generation, or undefined for bytes that are not one (damaged).
function decodeGeneration(codec: Codec, bytes: Uint8Array | undefined): number | undefined {
  if (bytes === undefined) return undefined
  try {
    const value = codec.decode(bytes)
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * The current generations of tags (full tag keys) in the store, one round trip where the store
 * can batch.
 * @returns each key's generation, `undefined` for a tag without one.
 * @throws what the store throws.
 */
export async function readGenerations(store: Store, codec: Codec, keys: readonly string[]): Promise<Array<number | undefined>> {
  const found = store.getMany ? await store.getMany(keys) : await Promise.all(keys.map((key) => store.get(key)))
  return found.map((bytes) => decodeGeneration(codec, bytes))
}

/**
 * The current generations of tags (full tag keys) about to stamp entries. A tag that has none
 * (or damaged bytes) gets one, so that every stamped entry names a generation that exists: if the
 * tag's key is ever lost (evicted, expired), its entries stop matching instead of coming back.
 * With a store that can `ensureMany`, reading and creating are one atomic step per tag that also
 * raises the tag key's life to `ttls[i]` (the longest store TTL of the entries stamped with it;
 * undefined: for ever), so a tag key lives as long as its entries and no longer. Other stores
 * keep tag keys without TTL.
 * @throws what the store throws.
 */
export async function ensureGenerations(store: Store, codec: Codec, keys: readonly string[], ttls: ReadonlyArray<number | undefined>, owner: object = store): Promise<number[]> {
  if (store.ensureMany) {
    const made = keys.map(() => newGeneration())
    const entries = keys.map((key, i) => ({ key, value: codec.encode(made[i]), ttl: ttls[i] }))
    const generations = (await store.ensureMany(entries)).map((bytes) => decodeGeneration(codec, bytes))
    const missing = entries.filter((_, i) => generations[i] === undefined) // damaged bytes
    if (missing.length > 0) await setAll(store, missing)
    return generations.map((generation, i) => generation ?? (made[i] as number))
  }
  const generations = await readGenerations(store, codec, keys)
  return Promise.all(generations.map((generation, i) => generation ?? createGeneration(store, codec, keys[i] as string, owner)))
}

// Tags being given a first generation, by the store the caches were given (`owner`: each cache
// wraps it in a breaker of its own) and key: without an atomic ensure, writers of one process that
// found none at once would each write a generation of their own, the last one would win, and the
// entries stamped with the others would read as deleted (19 of 20 concurrent first writes of a
// tag, measured). They wait for one creation instead, which reads again first (one that ended
// since may have made it) and reads back what it wrote; a deletion of the tag waits for it too.
// Writers of other processes or tabs sharing such a store may still race (the store cannot tell):
// their entries read as misses.
const creating = new WeakMap<object, Map<string, Promise<number>>>()

function createGeneration(store: Store, codec: Codec, key: string, owner: object): Promise<number> {
  let pending = creating.get(owner)
  if (pending === undefined) creating.set(owner, (pending = new Map()))
  let created = pending.get(key)
  if (created === undefined) {
    const made = newGeneration()
    const of = pending
    created = (async () => {
      const [found] = await readGenerations(store, codec, [key])
      if (found !== undefined) return found
      await store.set(key, codec.encode(made))
      const [stored] = await readGenerations(store, codec, [key])
      return stored ?? made
    })().finally(() => of.delete(key))
    pending.set(key, created)
  }
  return created
}

/**
 * Deletes tags (full tag keys): entries stamped with their current generations stop matching.
 * Where the store can `ensureMany` (so writers create a tag's key atomically, with the life of
 * its entries), the keys are deleted: a tag nobody writes again leaves nothing behind. Elsewhere
 * each gets a new generation, without TTL.
 * @returns what the book learns: each key's new generation, undefined where it was deleted.
 * @throws what the store throws.
 */
export async function renewGenerations(store: Store, codec: Codec, keys: readonly string[], owner: object = store): Promise<Array<number | undefined>> {
  // A first generation being written now must not land over the new one.
  const pending = creating.get(owner)
  if (pending !== undefined) await Promise.all(keys.map((key) => pending.get(key)?.catch(() => {})))
  if (store.ensureMany) {
    await (store.deleteMany ? store.deleteMany(keys) : Promise.all(keys.map((key) => store.delete(key))))
    return keys.map(() => undefined)
  }
  const generations = keys.map(() => newGeneration())
  await setAll(store, keys.map((key, i) => ({ key, value: codec.encode(generations[i]) })))
  return generations
}

/**
 * The tag stamps (tag → current generation) of entries about to be written, each with its own
 * tags (or none) and store TTL (`ttlsOf`, undefined: none), in one store round trip for all of
 * them; the book learns the generations.
 * @throws what the store throws.
 */
export async function stampTags(
  store: Store,
  codec: Codec,
  book: TagBook,
  prefix: string,
  tagsOf: ReadonlyArray<readonly string[] | undefined>,
  ttlsOf: ReadonlyArray<number | undefined>,
  owner: object = store,
): Promise<Array<ReadonlyMap<string, number> | undefined>> {
  const all = [...new Set(tagsOf.flatMap((tags) => tags ?? []))]
  if (all.length === 0) return tagsOf.map(() => undefined)
  // Each tag key must outlive every entry written with it: the longest TTL, none if one has none.
  const longest = new Map<string, number>()
  tagsOf.forEach((tags, i) => tags?.forEach((tag) => longest.set(tag, Math.max(longest.get(tag) ?? 0, ttlsOf[i] ?? Infinity))))
  const keys = all.map((tag) => tagKey(prefix, tag))
  const ttls = all.map((tag) => (longest.get(tag) === Infinity ? undefined : longest.get(tag)))
  const generations = await book.learning(keys, () => ensureGenerations(store, codec, keys, ttls, owner))
  const of = new Map(all.map((tag, i) => [tag, generations[i] as number]))
  return tagsOf.map((tags) => (tags === undefined ? undefined : new Map(tags.map((tag) => [tag, of.get(tag) as number]))))
}

/** A read of tags' generations under way (see {@link TagBook.reading}). */
export interface TagRead {
  readonly keys: readonly string[]
  readonly since: number
}

/**
 * What this process last learnt of each tag's generation (full tag keys): from the store, from
 * its own `deleteByTag`, from other processes' announcements. Local copies of tagged entries are
 * checked against it on every hit, so a deletion announced by another process drops them at once.
 *
 * It holds at most `maxEntries` tags, the least recently learnt leaving first, and an
 * announcement is recorded only for a tag it already knows: every tag of a local copy was learnt
 * when the copy was read or written, and a copy whose tag the book does not know (never learnt,
 * or pushed out) is not trusted, so its next read asks the store. Announcements of made-up tags
 * and years of per-entity tags therefore cost no memory beyond the bound.
 */
export class TagBook {
  private readonly known = new Map<string, number>()
  // Generations being read from the store, by tag key: how many reads, and the last invalidation
  // heard while any ran. A read answered before another process's deleteByTag whose answer comes
  // after its announcement must not teach the book the deleted generation (the local copy of a
  // deleted entry would then match it). Only tags being read are tracked: bounded by the reads.
  private readonly inFlight = new Map<string, { readers: number; invalidated: number }>()
  private invalidations = 0

  /** @param maxEntries - most tags known at once (the local tier's `maxTags`). */
  constructor(private readonly maxEntries: number) {}

  /** How many tags the book knows. */
  get size(): number {
    return this.known.size
  }

  learn(key: string, generation: number | undefined): void {
    this.known.delete(key)
    if (generation === undefined) return
    this.known.set(key, generation)
    if (this.known.size > this.maxEntries) this.known.delete(this.known.keys().next().value as string)
  }

  /**
   * A read of these tags' generations from the store begins: pass what this returns to {@link read}
   * when it ends, however it ends.
   */
  reading(keys: readonly string[]): TagRead {
    for (const key of keys) {
      const flight = this.inFlight.get(key)
      if (flight) flight.readers++
      else this.inFlight.set(key, { readers: 1, invalidated: -1 })
    }
    return { keys, since: this.invalidations }
  }

  /**
   * A read begun with {@link reading} ended: the book learns what it found (`generations`, in the
   * order of its keys; nothing when it failed), except for tags invalidated since it began, which
   * it leaves unknown.
   */
  read(read: TagRead, generations?: ReadonlyArray<number | undefined>): void {
    read.keys.forEach((key, i) => {
      const flight = this.inFlight.get(key)
      const stale = flight !== undefined && flight.invalidated >= read.since
      if (flight && --flight.readers === 0) this.inFlight.delete(key)
      if (generations === undefined) return
      if (stale) this.known.delete(key)
      else this.learn(key, generations[i])
    })
  }

  /**
   * Reads these tags' generations with `read` (see {@link reading}) and learns what it finds.
   * @returns what `read` found.
   * @throws what `read` throws (the book then learns nothing).
   */
  async learning<G extends ReadonlyArray<number | undefined>>(keys: readonly string[], read: () => Promise<G>): Promise<G> {
    const reading = this.reading(keys)
    let generations: G
    try {
      generations = await read()
    } catch (e) {
      this.read(reading)
      throw e
    }
    this.read(reading, generations)
    return generations
  }

  /**
   * This process's own deletion of these tags, begun with {@link reading}, answered with their new
   * `generations`: the book learns them unless another deletion (or a gap) overtook it meanwhile,
   * and reads of the old generations still running learn nothing.
   */
  renewed(read: TagRead, generations: ReadonlyArray<number | undefined>): void {
    const at = this.invalidations++
    read.keys.forEach((key, i) => {
      const flight = this.inFlight.get(key)
      const overtaken = flight !== undefined && flight.invalidated >= read.since
      if (flight) {
        flight.invalidated = at
        if (--flight.readers === 0) this.inFlight.delete(key)
      }
      if (overtaken) this.known.delete(key)
      else this.learn(key, generations[i])
    })
  }

  /** Another process deleted the tag: its generation is unknown until read again (a tag the book does not know needs no note). */
  invalidate(key: string): void {
    if (this.known.has(key)) this.known.set(key, INVALIDATED)
    const flight = this.inFlight.get(key)
    if (flight) flight.invalidated = this.invalidations++
  }

  /** Messages may have been lost: nothing learnt from them can be trusted, nor what reads running now find. */
  forget(): void {
    this.known.clear()
    const at = this.invalidations++
    for (const flight of this.inFlight.values()) flight.invalidated = at
  }

  /** Whether every tag of `stamp` (tag → generation, tags under `prefix`) is known to still have its generation. */
  current(prefix: string, stamp: ReadonlyMap<string, number>): boolean {
    for (const [tag, generation] of stamp) {
      if (this.known.get(tagKey(prefix, tag)) !== generation) return false
    }
    return true
  }
}
