// How the whole-client persister lays a client out in a store, under its `key`:
//
//   `${key}:manifest`   the manifest: { layout, save, timestamp, buster, mutations, segments },
//                       where `segments` lists the ids of the segments that make up this save, in
//                       order, and `save` is an id of its own (another page's save changes it)
//   `${key}:s:${id}`    a segment: one envelope whose value is an array of dehydrated queries,
//                       about `segmentBytes` of MessagePack, deflated as a whole
//   `${key}:removed`    written by `removeClient` (a sign-out) after it deleted the rest: an id
//                       of that removal, which it also told the open pages at once
//                       (removal-notices.ts). A page that finds another removal than the one it first
//                       saw saves nothing more (it may still hold the signed-out user's queries);
//                       each manifest names the removal its page knew, and a restore takes a
//                       manifest only when that is the stored one (a save that ran on past a
//                       sign-out wrote the signed-out user's queries).
//
// Saves and removals of every page of the origin take turns under one Web Lock (page-lock.ts), so
// that no save deletes a segment another page's manifest is about to list, and no save that began
// before a removal writes after it. A restore takes no lock: it reads again when the manifest
// switched between its reads.
//
// A segment is one value, not one envelope per query, because per-query costs decided a restore
// of many small queries in a browser: a header, a CRC-32, a string table and a copy for each of
// 5,000 records (apps/bench, "App state persisted"). A segment holds queries whose strings share
// one table and whose objects share shapes, and its CRC-32 covers them all.
//
// Segments are never overwritten: a save writes the segments it changed under new ids, then the
// manifest (one small record: the switch), then deletes the segments the old manifest listed and
// the new one does not. A restore follows one manifest only, so a save left midway restores as
// the save before it (or as nothing, when there was none).
//
// Layout 1 (earlier @stowage/persist 0.3 builds): the same keys, but a segment is an array of query
// records, each the envelope (not deflated) of one dehydrated query. Still read: its segments stay
// listed until a save rewrites them, and a restore takes a segment of either kind.
// Layout 0 (@stowage/persist 0.2): `${key}:index` and one `${key}:q:${hash}` per query. It is not
// read; the first save of a later layout deletes it.
import { StowageError, StowageErrorCode, type Codec } from '@stowage/core'
import { isDehydratedMutation, type DehydratedMutation } from './query-shape.js'

/** The layout this file describes, which saves write. */
export const LAYOUT = 2
/** Layouts a restore follows: this one and layout 1, whose segments a restore reads as well. */
const READ_LAYOUTS: ReadonlySet<unknown> = new Set([1, LAYOUT])

/** The record that says which segments make up the persisted client. */
export interface Manifest {
  readonly layout: 1 | typeof LAYOUT
  /** An id of this save: a page that finds another one than it wrote or read knows another page saved since. */
  readonly save: string
  readonly timestamp: number
  readonly buster: string
  readonly mutations: readonly DehydratedMutation[]
  readonly segments: readonly string[]
  /**
   * The removal record's id the saving page knew (absent: none, or a build before 0.5.1). A
   * manifest whose id is not the stored record's was written by a page that had not seen the last
   * removal (a save still running when a sign-out gave up waiting for it): a restore finds nothing.
   */
  readonly removal?: string
}

export const manifestKey = (key: string): string => `${key}:manifest`
export const removedKey = (key: string): string => `${key}:removed`
/** The Web Lock under which saves and removals of `key` take turns. */
export const lockName = (key: string): string => `stowage-persist:${key}`
export const segmentPrefix = (key: string): string => `${key}:s:`
export const segmentKey = (key: string, id: string): string => `${key}:s:${id}`
/** Keys of layout 0, deleted by the first save. */
export const legacyIndexKey = (key: string): string => `${key}:index`
export const legacyQueryPrefix = (key: string): string => `${key}:q:`

export { newId } from '../shared/new-id.js'

/**
 * The id a removal record holds.
 *
 * @param codec - the codec it was written with.
 * @param bytes - the stored record, or `undefined` when there is none.
 * @returns the removal's id; `undefined` when no record is stored; `'damaged'` when it cannot be read.
 */
export function readRemoval(codec: Codec, bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined
  try {
    const id = codec.decode<unknown>(bytes)
    return typeof id === 'string' ? id : 'damaged'
  } catch {
    return 'damaged'
  }
}

/**
 * Decodes a manifest and checks its shape; mutations `hydrate` could not take are left out.
 *
 * @param codec - the codec it was written with.
 * @param bytes - the stored manifest.
 * @returns the manifest.
 * @throws {StowageError} the decoder's codes for damaged bytes; CORRUPT for a record that is not a manifest of a layout this version reads.
 */
export function readManifest(codec: Codec, bytes: Uint8Array): Manifest {
  const value = codec.decode<Partial<Manifest> | null>(bytes)
  if (
    typeof value !== 'object' ||
    value === null ||
    !READ_LAYOUTS.has(value.layout) ||
    typeof value.save !== 'string' ||
    typeof value.timestamp !== 'number' ||
    typeof value.buster !== 'string' ||
    !Array.isArray(value.mutations) ||
    !Array.isArray(value.segments) ||
    !value.segments.every((id) => typeof id === 'string') ||
    (value.removal !== undefined && typeof value.removal !== 'string')
  ) {
    throw new StowageError(StowageErrorCode.CORRUPT, 'the persisted client manifest is not a manifest of this layout')
  }
  return { ...value, mutations: value.mutations.filter(isDehydratedMutation) } as Manifest
}
