import type { QueryState } from '@tanstack/query-core'

/**
 * A query's state as it can be stored: its `error` and `fetchFailureReason` (usually `Error`s,
 * which no envelope holds) become `null`; everything else, `data` included, is kept as it is.
 *
 * @param state - a query's state.
 * @returns the same object when it holds no error, else a shallow copy without them.
 */
export function storableState<T extends QueryState>(state: T): T {
  if (state.error == null && state.fetchFailureReason == null) return state
  return { ...state, error: null, fetchFailureReason: null }
}
