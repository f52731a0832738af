// What the Cache tests share: a store that can be made to fail, an event recorder, waits.
import { createMemoryStore, type CacheEvents, type Store } from '../src/index.js'

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function storedKeys(store: Store): Promise<string[]> {
  const keys: string[] = []
  for await (const key of store.keys!('')) keys.push(key)
  return keys.sort()
}

/** A real memory store whose every call can be made to fail, as a Redis that went away would. */
export function breakableStore() {
  const inner = createMemoryStore()
  const state = { broken: false }
  const guard = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    if (state.broken) throw new Error('connection refused')
    return fn(...args)
  }
  const store: Store = {
    name: 'breakable',
    get: guard((key: string) => inner.get(key)),
    set: guard((key: string, value: Uint8Array, options?: { ttl?: number }) => inner.set(key, value, options)),
    delete: guard((key: string) => inner.delete(key)),
  }
  return { store, state, inner }
}

export function record<E extends keyof CacheEvents>(cache: { on: (e: E, l: (x: CacheEvents[E]) => void) => () => void }, event: E): Array<CacheEvents[E]> {
  const seen: Array<CacheEvents[E]> = []
  cache.on(event, (e) => seen.push(e))
  return seen
}

/** Waits until `check` holds, polling every 10 ms; fails after `ms`. */
export async function until(check: () => Promise<boolean>, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(10)
  }
}
