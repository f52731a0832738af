// A save of the whole client: the segments that hold a query whose state changed, or a query
// removed since the last save, are encoded again with their present queries, and new queries go to
// new segments, all written under new ids (one segment encoded while the one before it is
// deflated, in a worker where one runs, and the one before that written); then the manifest
// switches to them, then what it no longer lists is deleted. See client-layout.ts for the keys.
import { StowageError, StowageErrorCode, type EncodedEnvelope } from '@stowage/core'
import type { PersistedClient } from '@tanstack/query-persist-client-core'
import { deleteMany, getMany } from '../shared/batch.js'
import { startCompressionWorker, type CompressionWorker } from '../shared/compression-worker.js'
import { withPageLock } from '../shared/page-lock.js'
import { slicer } from '../shared/yield-to-main.js'
import { LAYOUT, legacyIndexKey, legacyQueryPrefix, lockName, manifestKey, newId, readManifest, readRemoval, removedKey, segmentKey, segmentPrefix, type Manifest } from './client-layout.js'
import { fingerprint, same, type Held, type SegmentBook, type SegmentContext } from './segment-book.js'
import type { DehydratedQuery } from './query-shape.js'
import { storableState } from './storable-state.js'

const message = (e: unknown) => String((e as Error)?.message ?? e)

/** How many queries a page's first save encodes (without deflate) to learn their size, before its first segment. */
const PROBE_QUERIES = 8
/**
 * A page's first save starts with smaller segments: `segmentBytes` halved this many times (never
 * below {@link RAMP_FLOOR}), doubling from one segment to the next up to `segmentBytes`. The
 * encoder runs cold there, and a first segment of 512 KiB made one 64 ms task in Chromium 156
 * after a reload (apps/bench, persist-bench.ts).
 */
const RAMP_STEPS = 3
const RAMP_FLOOR = 64 * 1024
/**
 * Encoding a segment is one task of the main thread: each next segment is also sized so that it
 * should encode in about this many times `sliceMs` (16 ms by default), at the speed per byte the
 * segment before it was encoded. A cold encoder, in a page just loaded, is several times slower
 * than a warm one: after a reload in Chromium 156 one 512 KiB segment of the webhook payloads took
 * ~30 ms, and with a 20 ms garbage collection in it made the save's 52–78 ms task (apps/bench,
 * persist-bench.ts). Never below RAMP_FLOOR (or `segmentBytes`, when smaller).
 */
const ENCODE_SLICES = 2

/** A query as a segment stores it: without its promise, without the errors no envelope holds. */
function storable(query: DehydratedQuery): DehydratedQuery {
  const { promise: _promise, ...rest } = query
  return { ...rest, state: storableState(query.state) }
}

// MessagePack bytes per query of `queries` as a segment holds them (their strings in one table),
// so that a page's first segment, too, is about `segmentBytes`.
function probe(ctx: SegmentContext, queries: readonly DehydratedQuery[]): number {
  try {
    return Math.max(1, ctx.recordCodec.encodeEnvelope(queries.map(storable)).payloadLength / queries.length)
  } catch {
    return ctx.segmentBytes / PROBE_QUERIES // encodeSegments finds the query at fault
  }
}

interface Encoded {
  readonly bytes: Uint8Array
  readonly payloadLength: number
  readonly queries: readonly DehydratedQuery[]
}

// Encodes `queries` as one segment, or, when the codec refuses it, as the segments of each half: a
// query no envelope holds (a function in its data, nesting past maxDepth) is found by halving,
// reported to `onError` and left out, and a run too large for one envelope is cut in two.
async function encodeSegments(ctx: SegmentContext, queries: readonly DehydratedQuery[], worker: CompressionWorker | undefined): Promise<Encoded[]> {
  try {
    return [{ ...(await encodeSegment(ctx, queries.map(storable), worker)), queries }]
  } catch (e) {
    if (!StowageError.isInstance(e)) throw e
    if (queries.length === 1) {
      ctx.onError(new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `query ${queries[0]!.queryHash} was not persisted: ${message(e)}`, { cause: e }))
      return []
    }
  }
  const half = queries.length >> 1
  return [...(await encodeSegments(ctx, queries.slice(0, half), worker)), ...(await encodeSegments(ctx, queries.slice(half), worker))]
}

// One segment's envelope, deflated by the worker where there is one (by the main thread when the
// worker fails, rather than finding the value refused).
async function encodeSegment(ctx: SegmentContext, values: readonly DehydratedQuery[], worker: CompressionWorker | undefined): Promise<EncodedEnvelope> {
  if (worker === undefined) return ctx.segmentCodec.encodeEnvelopeAsync(values)
  try {
    return await ctx.segmentCodec.encodeEnvelopeAsync(values, undefined, { deflate: worker.deflate })
  } catch (e) {
    if (StowageError.isInstance(e)) throw e
    return ctx.segmentCodec.encodeEnvelopeAsync(values)
  }
}

// Encodes and writes `queries` in segments of about `segmentBytes`, adding each to `written` by
// its new id: the main thread encodes one segment while the one before it is deflated (in the
// worker where there is one) and the one before that is written.
async function writeSegments(ctx: SegmentContext, book: SegmentBook, queries: readonly DehydratedQuery[], worker: CompressionWorker | undefined, written: Map<string, readonly DehydratedQuery[]>): Promise<void> {
  const slice = slicer(ctx.sliceMs)
  const ramp = book.bytesPerQuery === 0
  if (ramp) {
    book.bytesPerQuery = probe(ctx, queries.slice(0, PROBE_QUERIES))
    await slice.pause()
  }
  let writing: Promise<void> = Promise.resolve()
  const write = async (encoded: readonly Encoded[]) => {
    for (const { bytes, payloadLength, queries: kept } of encoded) {
      await writing
      book.bytesPerQuery = payloadLength / kept.length
      const id = newId()
      book.garbage.add(segmentKey(ctx.key, id)) // until a manifest lists it
      writing = ctx.store.set(segmentKey(ctx.key, id), bytes)
      // Awaited at the next segment or at the end; handled meanwhile, so a failed write is this
      // save's error and never an unhandled rejection while the next segment encodes.
      writing.catch(() => {})
      written.set(id, kept)
    }
  }
  let deflating: Promise<Encoded[]> | undefined
  // MessagePack bytes the main thread encoded per ms in the last segment (unknown before the first).
  let bytesPerMs = Infinity
  for (let at = 0, k = 0; at < queries.length; k++) {
    const ramped = ramp ? Math.min(ctx.segmentBytes, Math.max(RAMP_FLOOR, ctx.segmentBytes / 2 ** Math.max(0, RAMP_STEPS - k))) : ctx.segmentBytes
    const target = Math.min(ramped, Math.max(Math.min(RAMP_FLOOR, ctx.segmentBytes), bytesPerMs * ENCODE_SLICES * ctx.sliceMs))
    const group = queries.slice(at, at + Math.max(1, Math.floor(target / book.bytesPerQuery)))
    at += group.length
    // The encode runs now, up to the deflate it awaits: what this call takes is the segment's task.
    const started = performance.now()
    const next = encodeSegments(ctx, group, worker)
    const took = performance.now() - started
    // A clock that did not move (browsers coarsen it to 0.1–1 ms, more when resisting
    // fingerprinting): faster than it can tell, so no limit from this segment.
    bytesPerMs = took > 0 ? (group.length * book.bytesPerQuery) / took : Infinity
    next.catch(() => {}) // awaited below, after the segment before it
    if (deflating !== undefined) await write(await deflating)
    deflating = next
    await slice.pause()
  }
  if (deflating !== undefined) await write(await deflating)
  await writing
}

// The stored manifest, unless it is the one the book follows: a page that saves before it restored,
// or after another page (another tab) saved, does not know what the stored segments hold, so it
// writes every query anew and deletes the stored segments after its manifest is written.
// Resolves false when another page removed the stored client since this page first looked (a
// sign-out there): this page's queries may be the signed-out user's, so it saves nothing.
async function follow(ctx: SegmentContext, book: SegmentBook): Promise<boolean> {
  const [bytes, removed] = await getMany(ctx.store, [manifestKey(ctx.key), removedKey(ctx.key)])
  if (!book.see(readRemoval(ctx.segmentCodec, removed))) return false
  let stored: Manifest | undefined
  try {
    if (bytes !== undefined) stored = readManifest(ctx.segmentCodec, bytes)
  } catch {
    // A damaged manifest is replaced below; the sweep finds its segments where the store lists keys.
  }
  if (book.known && stored?.save === book.save) return true
  book.segments = new Map()
  book.held = new Map()
  book.stale.clear()
  for (const id of stored?.segments ?? []) book.garbage.add(segmentKey(ctx.key, id))
  book.known = true
  book.save = stored?.save
  return true
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
 * Saves `client`: writes what changed since the book's last save and switches the manifest to it,
 * holding the key's page lock throughout (saves and removals of other pages wait). On failure the
 * stored client stays the previous save, and what this one wrote is deleted later. Writes nothing
 * when another page removed the stored client since this page last read or wrote it.
 *
 * @param ctx - where and how.
 * @param book - what this page knows of the stored client; updated once the manifest is written.
 * @param client - the dehydrated client TanStack hands over.
 * @throws {StowageError} the store's STORE_ERROR or LIMIT_EXCEEDED; a query no envelope holds goes to `onError` instead.
 */
export function saveClient(ctx: SegmentContext, book: SegmentBook, client: PersistedClient): Promise<void> {
  return withPageLock(lockName(ctx.key), () => saveLocked(ctx, book, client))
}

async function saveLocked(ctx: SegmentContext, book: SegmentBook, client: PersistedClient): Promise<void> {
  if (!book.stopped && (await follow(ctx, book))) await writeClient(ctx, book, client)
  if (!book.stopped || book.stopReported) return
  book.stopReported = true
  ctx.onError(new StowageError(StowageErrorCode.STORE_ERROR, 'not saved: another tab removed the persisted client (a sign-out, or TanStack discarding an expired or busted one) after this page first read it; this page may hold the signed-out user\'s queries and saves nothing more until it is reloaded'))
}

async function writeClient(ctx: SegmentContext, book: SegmentBook, client: PersistedClient): Promise<void> {
  // What this save knew when it began: a removal of this page since (one that gave up waiting
  // for it) or of another page (found just before the manifest) means it holds the user signed
  // out, and writes no manifest; the manifest it does write names the removal it knew.
  const removals = book.removals
  const knew = book.removal
  if (!book.swept) await sweep(ctx, book)
  const queries = new Map<string, DehydratedQuery>()
  const dirty = new Set(book.stale)
  const newcomers: string[] = []
  for (const query of client.clientState.queries as DehydratedQuery[]) {
    const hash = query.queryHash
    if (queries.has(hash)) continue // hydrate would take the first one
    queries.set(hash, query)
    const held = book.held.get(hash)
    if (held === undefined) newcomers.push(hash)
    else if (!same(held.written, query.state)) dirty.add(held.segment)
  }
  for (const [hash, held] of book.held) if (!queries.has(hash)) dirty.add(held.segment)

  const repack: string[] = []
  for (const id of dirty) for (const hash of book.segments.get(id) ?? []) if (queries.has(hash)) repack.push(hash)
  repack.push(...newcomers)
  const written = new Map<string, readonly DehydratedQuery[]>()
  if (repack.length > 0) {
    const toWrite = repack.map((hash) => queries.get(hash) as DehydratedQuery)
    const worker = startCompressionWorker()
    try {
      await writeSegments(ctx, book, toWrite, worker, written)
    } finally {
      worker?.close()
    }
  }

  const segments = [...[...book.segments.keys()].filter((id) => !dirty.has(id)), ...written.keys()]
  const { timestamp, buster, clientState } = client
  const save = newId()
  const removed = readRemoval(ctx.segmentCodec, await ctx.store.get(removedKey(ctx.key)))
  if (book.removals !== removals || book.stopped || (removed !== undefined && removed !== knew)) {
    await deleteMany(
      ctx.store,
      [...written.keys()].map((id) => segmentKey(ctx.key, id)),
    ).catch(() => {})
    if (book.removals === removals) book.see(removed)
    return
  }
  await ctx.store.set(manifestKey(ctx.key), encodeManifest(ctx, { layout: LAYOUT, save, timestamp, buster, mutations: clientState.mutations, segments, ...(knew === undefined ? {} : { removal: knew }) }))
  // A removal of this page ran meanwhile: that manifest names the removal before it, so no restore
  // takes it, and the book the removal emptied stays empty (the next save writes anew).
  if (book.removals !== removals) return
  book.save = save

  // The manifest now lists `segments`: the book follows it.
  const nextSegments = new Map<string, readonly string[]>()
  const nextHeld = new Map<string, Held>()
  for (const id of segments) {
    const fresh = written.get(id)
    if (fresh !== undefined) {
      nextSegments.set(id, fresh.map((query) => query.queryHash))
      for (const query of fresh) nextHeld.set(query.queryHash, { written: fingerprint(query.state), segment: id })
    } else {
      const hashes = book.segments.get(id) as readonly string[]
      nextSegments.set(id, hashes)
      for (const hash of hashes) nextHeld.set(hash, book.held.get(hash) as Held)
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
