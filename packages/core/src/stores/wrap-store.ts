// A store seen through a wrapper: every call that returns a promise goes through `around`, with the
// same abilities and the same name; `keys` (an iterator) and `close` pass through. The circuit
// breaker and a cache's dictionary publishing each wrap the store this way.
import type { Store } from './store.js'

/** The Store methods that return a promise, abilities included. */
export const STORE_CALLS = ['get', 'getWithTtl', 'getManyWithTtl', 'set', 'delete', 'getMany', 'setMany', 'deleteMany', 'ensureMany', 'clear', 'getField', 'getFields', 'setField', 'deleteField'] as const

/** One of {@link STORE_CALLS}. */
export type StoreCall = (typeof STORE_CALLS)[number]

/**
 * `store`, each of its promise-returning methods it has called through `around(name, call)`, where
 * `call()` runs the store's own method with the caller's arguments.
 * @returns a new object with the same abilities as `store`.
 */
export function wrapStore(store: Store, around: (name: StoreCall, call: () => Promise<unknown>) => Promise<unknown>): Store {
  const wrapped: Record<string, unknown> = { name: store.name }
  for (const name of STORE_CALLS) {
    const method = store[name] as ((...args: unknown[]) => Promise<unknown>) | undefined
    if (typeof method === 'function') wrapped[name] = (...args: unknown[]) => around(name, () => method.apply(store, args))
  }
  if (store.keys) wrapped.keys = (prefix: string) => (store.keys as (p: string) => AsyncIterable<string>).call(store, prefix)
  if (store.close) wrapped.close = () => (store.close as () => Promise<void>).call(store)
  return wrapped as unknown as Store
}
