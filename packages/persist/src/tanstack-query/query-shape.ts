// What a restored record must look like before it is handed to TanStack's `hydrate`: a decodable
// record of another shape (an `encode({})` in its place, a record of another version) would make
// `hydrate` throw, and TanStack then removes the whole persisted client. Checked here, one query
// (or mutation) at a time, so that a wrong record is left out alone.
import type { DehydratedState } from '@tanstack/query-core'

/** One dehydrated query, as `hydrate` reads it. */
export type DehydratedQuery = DehydratedState['queries'][number]
/** One dehydrated mutation, as `hydrate` reads it. */
export type DehydratedMutation = DehydratedState['mutations'][number]

const STATUSES: ReadonlySet<unknown> = new Set(['pending', 'error', 'success'])

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Whether `value` has the fields `hydrate` uses of a dehydrated query: a string `queryHash`, an
 * array `queryKey`, a `state` with a numeric `dataUpdatedAt` and a known `status`, a `meta` that
 * is an object when present, and no `promise` (the persister never stores one, and a decoded value
 * is never a promise: `hydrate` would call its `then`).
 *
 * @param value - a decoded record.
 * @returns `true` when `hydrate` can take it.
 */
export function isDehydratedQuery(value: unknown): value is DehydratedQuery {
  if (!isRecord(value) || typeof value.queryHash !== 'string' || !Array.isArray(value.queryKey) || value.promise !== undefined) return false
  const { state, meta } = value
  if (meta !== undefined && meta !== null && !isRecord(meta)) return false
  return isRecord(state) && typeof state.dataUpdatedAt === 'number' && typeof state.errorUpdatedAt === 'number' && STATUSES.has(state.status)
}

/**
 * Whether `value` has the fields `hydrate` uses of a dehydrated mutation: a `state` object and,
 * when present, an array `mutationKey`.
 *
 * @param value - a decoded record.
 * @returns `true` when `hydrate` can take it.
 */
export function isDehydratedMutation(value: unknown): value is DehydratedMutation {
  return isRecord(value) && isRecord(value.state) && (value.mutationKey === undefined || Array.isArray(value.mutationKey))
}
