// How the whole-client persister lays a client out in a store, under its `key`:
//
//   `${key}:manifest`   the manifest: { layout, save, timestamp, buster, mutations, segments },
//                       where `segments` lists the ids of the segments that make up this save, in
//                       order, and `save` is an id of its own (another page's save changes it)
//   `${key}:s:${id}`    a segment: an array of query records, each the envelope of one
//                       dehydrated query, packed up to `segmentBytes` and deflated together
//
// Segments are never overwritten: a save writes the segments it changed under new ids, then the
// manifest (one small record: the switch), then deletes the segments the old manifest listed and
// the new one does not. A restore follows one manifest only, so a save left midway restores as
// the save before it (or as nothing, when there was none).
//
// Layout 0 (@stowage/persist 0.2): `${key}:index` and one `${key}:q:${hash}` per query. It is not
// read; the first save of the new layout deletes it.
import { StowageError, StowageErrorCode, type Codec } from '@stowage/core'
import { isDehydratedMutation, type DehydratedMutation } from './query-shape.js'

/** The layout this file describes; a manifest of another layout is not followed. */
export const LAYOUT = 1

/** The record that says which segments make up the persisted client. */
export interface Manifest {
  readonly layout: typeof LAYOUT
  /** An id of this save: a page that finds another one than it wrote or read knows another page saved since. */
  readonly save: string
  readonly timestamp: number
  readonly buster: string
  readonly mutations: readonly DehydratedMutation[]
  readonly segments: readonly string[]
}

export const manifestKey = (key: string): string => `${key}:manifest`
export const segmentPrefix = (key: string): string => `${key}:s:`
export const segmentKey = (key: string, id: string): string => `${key}:s:${id}`
/** Keys of layout 0, deleted by the first save. */
export const legacyIndexKey = (key: string): string => `${key}:index`
export const legacyQueryPrefix = (key: string): string => `${key}:q:`

let counter = 0
/** An id no earlier save used (for segments and saves): the time, a counter and a random part. */
export function newId(): string {
  counter = (counter + 1) % 0x100000
  return `${Date.now().toString(36)}.${counter.toString(36)}.${Math.random().toString(36).slice(2, 8)}`
}

/**
 * Decodes a manifest and checks its shape; mutations `hydrate` could not take are left out.
 *
 * @param codec - the codec it was written with.
 * @param bytes - the stored manifest.
 * @returns the manifest.
 * @throws {StowageError} the decoder's codes for damaged bytes; CORRUPT for a record that is not a manifest of this layout.
 */
export function readManifest(codec: Codec, bytes: Uint8Array): Manifest {
  const value = codec.decode<Partial<Manifest> | null>(bytes)
  if (
    typeof value !== 'object' ||
    value === null ||
    value.layout !== LAYOUT ||
    typeof value.save !== 'string' ||
    typeof value.timestamp !== 'number' ||
    typeof value.buster !== 'string' ||
    !Array.isArray(value.mutations) ||
    !Array.isArray(value.segments) ||
    !value.segments.every((id) => typeof id === 'string')
  ) {
    throw new StowageError(StowageErrorCode.CORRUPT, 'the persisted client manifest is not a manifest of this layout')
  }
  return { ...value, mutations: value.mutations.filter(isDehydratedMutation) } as Manifest
}
