// A restore of the whole client: the manifest, then every segment it lists in one batch read (one
// IndexedDB transaction), each inflated natively where large and its records decoded in slices.
// A segment or record that is damaged, or decodes to something `hydrate` could not take, is left
// out alone (and cleaned up by the next save); a missing one (evicted for quota) likewise.
import type { PersistedClient } from '@tanstack/query-persist-client-core'
import { getMany } from '../shared/batch.js'
import { slicer } from '../shared/yield-to-main.js'
import { manifestKey, readManifest, segmentKey } from './client-layout.js'
import { isDehydratedQuery, type DehydratedQuery } from './query-shape.js'
import { fingerprint, type Held, type SegmentBook, type SegmentContext } from './segment-book.js'

// The records of one segment, or `undefined` when it is damaged or not a segment.
async function openSegment(ctx: SegmentContext, bytes: Uint8Array): Promise<readonly Uint8Array[] | undefined> {
  try {
    const records = await ctx.segmentCodec.decodeAsync<unknown>(bytes)
    return Array.isArray(records) && records.every((r) => r instanceof Uint8Array) ? records : undefined
  } catch {
    return undefined
  }
}

function openRecord(ctx: SegmentContext, bytes: Uint8Array): DehydratedQuery | undefined {
  try {
    const query = ctx.recordCodec.decode<unknown>(bytes)
    return isDehydratedQuery(query) ? query : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads the stored client as its manifest lists it, and makes `book` what it lists.
 *
 * @param ctx - where and how.
 * @param book - filled with the segments and records read.
 * @returns the persisted client, or `undefined` when none is stored.
 * @throws {StowageError} the store's errors; the decoder's codes, or CORRUPT, for a damaged manifest.
 */
export async function restoreClient(ctx: SegmentContext, book: SegmentBook): Promise<PersistedClient | undefined> {
  const bytes = await ctx.store.get(manifestKey(ctx.key))
  book.segments = new Map()
  book.held = new Map()
  book.stale.clear()
  book.known = true
  book.save = undefined
  if (bytes === undefined) return undefined
  const manifest = readManifest(ctx.segmentCodec, bytes)
  book.save = manifest.save
  const stored = await getMany(
    ctx.store,
    manifest.segments.map((id) => segmentKey(ctx.key, id)),
  )
  const open = (i: number) => (stored[i] === undefined ? Promise.resolve(undefined) : openSegment(ctx, stored[i] as Uint8Array))
  const queries: DehydratedQuery[] = []
  const held = new Map<string, Held>()
  const slice = slicer(ctx.sliceMs)
  // The next segment inflates while this one's records are decoded.
  let next = open(0)
  for (let i = 0; i < manifest.segments.length; i++) {
    const records = await next
    next = open(i + 1)
    const id = manifest.segments[i] as string
    if (records === undefined) {
      // Missing: not listed again by the next save. Damaged: deleted by it too.
      if (stored[i] !== undefined) book.garbage.add(segmentKey(ctx.key, id))
      continue
    }
    const hashes: string[] = []
    for (const record of records) {
      const query = openRecord(ctx, record)
      if (query === undefined || held.has(query.queryHash)) {
        book.stale.add(id)
      } else {
        queries.push(query)
        hashes.push(query.queryHash)
        // hydrate() keeps the very `data` object: an unchanged query is not encoded again.
        held.set(query.queryHash, { bytes: record, written: fingerprint(query.state), segment: id })
      }
      await slice.pause()
    }
    book.segments.set(id, hashes)
  }
  book.held = held
  return { timestamp: manifest.timestamp, buster: manifest.buster, clientState: { queries, mutations: [...manifest.mutations] } }
}
