// A restore of the whole client: the manifest, then every segment it lists in one batch read (one
// IndexedDB transaction), each decoded as one value, the next few segments inflating while this one
// is decoded (in a worker where one can run, natively on the main thread otherwise), with a pause for
// the page between segments.
// A segment or query that is damaged, or decodes to something `hydrate` could not take, is left
// out alone (and cleaned up by the next save); a missing one (evicted for quota) likewise.
import { inspect, StowageError } from '@stowage/core'
import type { PersistedClient } from '@tanstack/query-persist-client-core'
import { deleteMany, getMany } from '../shared/batch.js'
import { startCompressionWorker, type CompressionWorker } from '../shared/compression-worker.js'
import { slicer } from '../shared/yield-to-main.js'
import { manifestKey, readManifest, readRemoval, removedKey, segmentKey, type Manifest } from './client-layout.js'
import { isDehydratedQuery, type DehydratedQuery } from './query-shape.js'
import { fingerprint, type Held, type SegmentBook, type SegmentContext } from './segment-book.js'

// How many segments a restore inflates ahead of the one it decodes (at most this many inflated
// segments, ~512 KiB each, wait at once). Inflating only the next one after decoding this one left
// the worker and the main thread taking turns: after a real reload in Chromium 156, each of 67
// segments waited 2–7 ms for its inflate (apps/bench, persist-bench.ts). The segments ahead are
// asked for in groups, once half of them are decoded: the asks of one task reach the worker in
// one message (compression-worker.ts).
const READ_AHEAD = 6

// The elements of one segment, or `undefined` when it is damaged or not a segment. The worker may
// inflate it at once, but it is decoded only once `turn` resolves: in the restore's loop, between
// its pauses for the page, not in whichever task the worker's answer arrives. A segment the worker
// does not inflate (stored uncompressed, or deflated against a dictionary) waits for its turn
// before anything is done with it. A worker that fails (rather than finding the bytes damaged)
// leaves the segment to the main thread.
async function openSegment(ctx: SegmentContext, bytes: Uint8Array, worker: CompressionWorker | undefined, turn: Promise<void>): Promise<readonly unknown[] | undefined> {
  let value: unknown
  try {
    if (worker === undefined || !inflatedByWorker(bytes)) {
      await turn
      value = await ctx.segmentCodec.decodeAsync<unknown>(bytes)
    } else {
      const inflate = async (deflated: Uint8Array, payloadLength: number) => {
        const payload = await worker.inflate(deflated, payloadLength)
        await turn
        return payload
      }
      value = await ctx.segmentCodec.decodeAsync<unknown>(bytes, { inflate })
    }
  } catch (e) {
    if (worker === undefined || StowageError.isInstance(e)) return undefined
    try {
      await turn
      value = await ctx.segmentCodec.decodeAsync<unknown>(bytes)
    } catch {
      return undefined
    }
  }
  return Array.isArray(value) ? value : undefined
}

// Whether decodeAsync hands this envelope's payload to the worker: deflated without a dictionary.
// A header that cannot be read is left to decodeAsync, in the segment's turn, to report.
function inflatedByWorker(bytes: Uint8Array): boolean {
  try {
    const { compression, dictionaryId } = inspect(bytes)
    return compression !== 'none' && dictionaryId === undefined
  } catch {
    return false
  }
}

// A segment's element as a query: layout 2 holds the query itself, layout 1 its record (an envelope).
function asQuery(ctx: SegmentContext, element: unknown): DehydratedQuery | undefined {
  let query = element
  if (element instanceof Uint8Array) {
    try {
      query = ctx.recordCodec.decode<unknown>(element)
    } catch {
      return undefined
    }
  }
  return isDehydratedQuery(query) ? query : undefined
}

/**
 * Reads the stored client as its manifest lists it, and makes `book` what it lists.
 *
 * @param ctx - where and how.
 * @param book - a new book, filled with the segments and queries read and the removal record found.
 * @returns the persisted client, or `undefined` when none is stored.
 * @throws {StowageError} the store's errors; the decoder's codes, or CORRUPT, for a damaged manifest.
 */
export async function restoreClient(ctx: SegmentContext, book: SegmentBook): Promise<PersistedClient | undefined> {
  // Started first: it boots while the manifest is read.
  const worker = startCompressionWorker()
  try {
    return await restoreWith(ctx, book, worker)
  } finally {
    worker?.close()
  }
}

// How many times a restore reads again when a segment its manifest lists is missing and the
// manifest changed meanwhile (another page's save switched it and deleted the segments it replaced).
const REREADS = 3

// The manifest, the removal record and the segments the manifest lists. Read without the page lock
// (a save that never ends in another page must not keep this page from restoring): a save deletes
// segments only after its manifest no longer lists them, so a segment that is missing while the
// manifest read again is the same one was evicted or lost, not replaced.
async function readStored(ctx: SegmentContext): Promise<{ manifest: Manifest | undefined; removal: string | undefined; segments: string[]; stored: Array<Uint8Array | undefined> }> {
  for (let attempt = 0; ; attempt++) {
    const [bytes, removed] = await getMany(ctx.store, [manifestKey(ctx.key), removedKey(ctx.key)])
    const removal = readRemoval(ctx.segmentCodec, removed)
    if (bytes === undefined) return { manifest: undefined, removal, segments: [], stored: [] }
    const manifest = readManifest(ctx.segmentCodec, bytes)
    if (removal !== undefined && manifest.removal !== removal) {
      // Written by a page that had not seen the last removal: the signed-out user's queries. No
      // manifest written since lists its segments (a save that finds this one writes anew): gone.
      // The next save replaces the manifest.
      void deleteMany(
        ctx.store,
        manifest.segments.map((id) => segmentKey(ctx.key, id)),
      ).catch(() => {})
      return { manifest: undefined, removal, segments: [], stored: [] }
    }
    // Each segment once: a manifest that lists one twice (no save writes one) must not read its
    // queries as repeats the second time, which would leave the segment's queries out of the next save.
    const segments = [...new Set(manifest.segments)]
    const stored = await getMany(
      ctx.store,
      segments.map((id) => segmentKey(ctx.key, id)),
    )
    if (attempt === REREADS || !stored.includes(undefined)) return { manifest, removal, segments, stored }
    const again = await ctx.store.get(manifestKey(ctx.key))
    if (again === undefined || sameBytes(again, bytes)) return { manifest, removal, segments, stored }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}

async function restoreWith(ctx: SegmentContext, book: SegmentBook, worker: CompressionWorker | undefined): Promise<PersistedClient | undefined> {
  const { manifest, removal, segments, stored } = await readStored(ctx)
  book.segments = new Map()
  book.held = new Map()
  book.stale.clear()
  book.known = true
  book.save = manifest?.save
  book.see(removal)
  if (manifest === undefined) return undefined
  // Segment i opened: inflating at once, decoded once `go` is called.
  const open = (i: number): { elements: Promise<readonly unknown[] | undefined>; go: () => void } => {
    if (stored[i] === undefined) return { elements: Promise.resolve(undefined), go: () => {} }
    let go = () => {}
    const turn = new Promise<void>((resolve) => (go = resolve))
    return { elements: openSegment(ctx, stored[i] as Uint8Array, worker, turn), go }
  }
  const queries: DehydratedQuery[] = []
  const held = new Map<string, Held>()
  const slice = slicer(ctx.sliceMs)
  const opening = new Map<number, ReturnType<typeof open>>()
  // The next segment to open, and the opening of the ones up to READ_AHEAD after `from`.
  let ahead = 0
  const refill = (from: number) => {
    for (; ahead < segments.length && ahead <= from + READ_AHEAD; ahead++) opening.set(ahead, open(ahead))
  }
  refill(-1)
  for (let i = 0; i < segments.length; i++) {
    const segment = opening.get(i) as ReturnType<typeof open>
    opening.delete(i)
    segment.go()
    const elements = await segment.elements
    if (opening.size <= READ_AHEAD / 2) refill(i)
    const id = segments[i] as string
    if (elements === undefined) {
      // Missing: not listed again by the next save. Damaged: deleted by it too.
      if (stored[i] !== undefined) book.garbage.add(segmentKey(ctx.key, id))
      continue
    }
    const hashes: string[] = []
    for (const element of elements) {
      const query = asQuery(ctx, element)
      if (query === undefined || held.has(query.queryHash)) {
        book.stale.add(id)
      } else {
        queries.push(query)
        hashes.push(query.queryHash)
        // hydrate() keeps the very `data` object: an unchanged query's segment is not encoded again.
        held.set(query.queryHash, { written: fingerprint(query.state), segment: id })
      }
    }
    book.segments.set(id, hashes)
    await slice.pause()
  }
  book.held = held
  return { timestamp: manifest.timestamp, buster: manifest.buster, clientState: { queries, mutations: [...manifest.mutations] } }
}
