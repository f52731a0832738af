// A user's partition of a Cache: `scope` in fetchCached and signOut. One child namespace per user
// (`<namespace>:scope:<scope>`), so a sign-out clears exactly that user's entries, in the store and in
// every tab's in-process tier (Cache.clear announces it), and one user's keys can never name another's.
import { StowageError, StowageErrorCode, type Cache } from '@stowage/core'

const SCOPE = /^[A-Za-z0-9_.-]{1,200}$/
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const scopes = new WeakMap<Cache<any>, Map<string, Cache<any>>>()

/**
 * The part of `cache` that belongs to one user: `cache.withNamespace('scope:' + scope)`, made once
 * per cache and scope.
 * @param scope - who the entries belong to, set by the app at sign-in: 1 to 200 letters, digits,
 *   `_`, `-` and `.` (a user id, or a hash of one).
 * @throws {StowageError} INVALID_ARGUMENT for another scope.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function scopedCache<C extends Cache<any>>(cache: C, scope: string): C {
  if (typeof scope !== 'string' || !SCOPE.test(scope)) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `a scope is 1 to 200 letters, digits, '_', '-' and '.', got ${JSON.stringify(scope)}`)
  }
  let byScope = scopes.get(cache)
  if (byScope === undefined) scopes.set(cache, (byScope = new Map()))
  let scoped = byScope.get(scope)
  if (scoped === undefined) byScope.set(scope, (scoped = cache.withNamespace(`scope:${scope}`)))
  return scoped as C
}

// The scope segment of a namespace: `scope:<scope>`, at the start or after a `:`.
const SCOPE_SEGMENT = /(?:^|:)scope:[A-Za-z0-9_.-]{1,200}(?::|$)/

/** Whether `cache` is a user's partition: made by {@link scopedCache}, or a namespace within one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function isScoped(cache: Cache<any>): boolean {
  return SCOPE_SEGMENT.test(cache.namespace)
}
