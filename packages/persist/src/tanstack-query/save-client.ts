// A save of the whole client: queries whose state changed since the last save are encoded (in
// slices), the segments that hold a changed or removed query are packed again with the new
// queries and written under new ids, then the manifest switches to them, then what it no longer
// lists is deleted. See client-layout.ts for the keys.
import { StowageError, StowageErrorCode } from '@stowage/core'
import type { PersistedClient } from '@tanstack/query-persist-client-core'
import { deleteMany } from '../shared/batch.js'
import { slicer } from '../shared/yield-to-main.js'
import { LAYOUT, legacyIndexKey, legacyQueryPrefix, manifestKey, newId, readManifest, segmentKey, segmentPrefix, type Manifest } from './client-layout.js'
import { fingerprint, same, type Held, type SegmentBook, type SegmentContext, type Written } from './segment-book.js'
import type { DehydratedQuery } from './query-shape.js'
import { storableState } from './storable-state.js'

const message = (e: unknown) => String((e as Error)?.message ?? e)

/** Cuts `hashes` into runs of at most `target` record bytes (a record larger than that runs alone). */
function pack(hashes: readonly string[], size: (hash: string) => number, target: number): string[][] {
  const groups: string[][] = []
  let group: string[] = []
  let bytes = 0
  for (const hash of hashes) {
    const n = size(hash)
    if (group.length > 0 && bytes + n > target) {
      groups.push(group)
      group = []
      bytes = 0
    }
    group.push(hash)
    bytes += n
  }
  if (group.length > 0) groups.push(group)
  return groups
}

// The stored manifest, unless it is the one the book follows: a page that saves before it restored,
// or after another page (another tab) saved, does not know what the stored segments hold, so it
// writes every query anew and deletes the stored segments after its manifest is written.
async function follow(ctx: SegmentContext, book: SegmentBook): Promise<void> {
  const bytes = await ctx.store.get(manifestKey(ctx.key))
  let stored: Manifest | undefined
  try {
    if (bytes !== undefined) stored = readManifest(ctx.segmentCodec, bytes)
  } catch {
    // A damaged manifest is replaced below; the sweep finds its segments where the store lists keys.
  }
  if (book.known && stored?.save === book.save) return
  book.segments = new Map()
  book.held = new Map()
  book.stale.clear()
  for (const id of stored?.segments ?? []) book.garbage.add(segmentKey(ctx.key, id))
  book.known = true
  book.save = stored?.save
}

// Once per page: segments of a save that never reached its manifest, and layout 0's records.
async function sweep(ctx: SegmentContext, book: SegmentBook): Promise<void> {
  book.swept = true
  book.garbage.add(legacyIndexKey(ctx.key))
  if (!ctx.store.keys) return
  const prefix = segmentPrefix(ctx.key)
  for await (const key of ctx.store.keys(prefix)) if (!book.segments.has(key.slice(prefix.length))) book.garbage.add(key)
  for await (const key of ctx.store.keys(legacyQueryPrefix(ctx.key))) book.garbage.add(key)
}

function encodeManifest(ctx: SegmentContext, manifest: Manifest): Uint8Array {
  try {
    return ctx.segmentCodec.encode(manifest)
  } catch (e) {
    // A paused mutation's variables may hold what no envelope can; keep the queries.
    ctx.onError(new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `the dehydrated mutations were not persisted: ${message(e)}`, { cause: e }))
    return ctx.segmentCodec.encode({ ...manifest, mutations: [] })
  }
}

/**
 * Saves `client`: writes what changed since the book's last save and switches the manifest to it.
 * On failure the stored client stays the previous save, and what this one wrote is deleted later.
 *
 * @param ctx - where and how.
 * @param book - what this page knows of the stored client; updated once the manifest is written.
 * @param client - the dehydrated client TanStack hands over.
 * @throws {StowageError} the store's STORE_ERROR or LIMIT_EXCEEDED; a query no envelope holds goes to `onError` instead.
 */
export async function saveClient(ctx: SegmentContext, book: SegmentBook, client: PersistedClient): Promise<void> {
  await follow(ctx, book)
  if (!book.swept) await sweep(ctx, book)
  const slice = slicer(ctx.sliceMs)
  const present = new Set<string>()
  const fresh = new Map<string, { bytes: Uint8Array; written: Written }>()
  const dirty = new Set(book.stale)
  const newcomers: string[] = []
  for (const query of client.clientState.queries) {
    const hash = query.queryHash
    const held = book.held.get(hash)
    if (held !== undefined && same(held.written, query.state)) {
      present.add(hash)
      continue
    }
    const { promise: _promise, ...rest } = query as DehydratedQuery
    let bytes: Uint8Array
    try {
      bytes = ctx.recordCodec.encode({ ...rest, state: storableState(query.state) })
    } catch (e) {
      ctx.onError(new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `query ${hash} was not persisted: ${message(e)}`, { cause: e }))
      if (held !== undefined) present.add(hash) // its last stored state stays
      continue
    }
    present.add(hash)
    fresh.set(hash, { bytes, written: fingerprint(query.state) })
    if (held === undefined) newcomers.push(hash)
    else dirty.add(held.segment)
    await slice.pause()
  }
  for (const [hash, held] of book.held) if (!present.has(hash)) dirty.add(held.segment)

  const recordOf = (hash: string) => fresh.get(hash)?.bytes ?? (book.held.get(hash) as Held).bytes
  const repack: string[] = []
  for (const id of dirty) for (const hash of book.segments.get(id) ?? []) if (present.has(hash)) repack.push(hash)
  repack.push(...newcomers)
  const written = new Map<string, string[]>()
  // One segment is encoded while the one before it is written.
  let writing: Promise<void> = Promise.resolve()
  for (const group of pack(repack, (hash) => recordOf(hash).length, ctx.segmentBytes)) {
    const id = newId()
    const bytes = await ctx.segmentCodec.encodeAsync(group.map(recordOf))
    await writing
    book.garbage.add(segmentKey(ctx.key, id)) // until a manifest lists it
    writing = ctx.store.set(segmentKey(ctx.key, id), bytes)
    // Awaited at the next segment or after the loop; handled meanwhile, so a failed write
    // is this save's error and never an unhandled rejection while the next segment encodes.
    writing.catch(() => {})
    written.set(id, group)
    await slice.pause()
  }
  await writing

  const segments = [...[...book.segments.keys()].filter((id) => !dirty.has(id)), ...written.keys()]
  const { timestamp, buster, clientState } = client
  const save = newId()
  await ctx.store.set(manifestKey(ctx.key), encodeManifest(ctx, { layout: LAYOUT, save, timestamp, buster, mutations: clientState.mutations, segments }))
  book.save = save

  // The manifest now lists `segments`: the book follows it.
  const nextSegments = new Map<string, readonly string[]>()
  const nextHeld = new Map<string, Held>()
  for (const id of segments) {
    const hashes = written.get(id) ?? (book.segments.get(id) as readonly string[])
    nextSegments.set(id, hashes)
    for (const hash of hashes) {
      const now = fresh.get(hash)
      const held = book.held.get(hash)
      nextHeld.set(hash, now !== undefined ? { ...now, segment: id } : held !== undefined && held.segment === id ? held : { ...(held as Held), segment: id })
    }
    book.garbage.delete(segmentKey(ctx.key, id))
  }
  for (const id of dirty) if (book.segments.has(id)) book.garbage.add(segmentKey(ctx.key, id))
  book.segments = nextSegments
  book.held = nextHeld
  book.stale.clear()
  const garbage = [...book.garbage]
  await deleteMany(ctx.store, garbage)
  for (const key of garbage) book.garbage.delete(key)
}
