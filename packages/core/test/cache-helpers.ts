// What the Cache tests share: a store that can be made to fail, an event recorder, waits, channels between caches.
import { createMemoryStore, type CacheEvents, type InvalidationChannel, type Store } from '../src/index.js'

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

/**
 * A real memory store, named as a remote one (so the local tier and breaker are on by default),
 * whose reads can be held: while `held`, a get answers what the store held when it was called,
 * but only once `release()` is called (a reply still on the wire).
 */
export function heldStore() {
  const inner = createMemoryStore()
  const waiting: Array<() => void> = []
  const state = { held: false }
  const hold = async <T>(answer: T): Promise<T> => {
    if (!state.held) return answer
    await new Promise<void>((resolve) => waiting.push(resolve))
    return answer
  }
  const store: Store = {
    name: 'held',
    get: async (key) => hold(await inner.get(key)),
    getWithTtl: async (key) => hold(await inner.getWithTtl(key)),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    clear: (prefix) => inner.clear(prefix),
  }
  const release = () => {
    state.held = false
    for (const resolve of waiting.splice(0)) resolve()
  }
  return { store, inner, state, release, waiting }
}

/** A promise and the function that resolves it. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => (open = resolve))
  return { promise, open }
}

/** A channel between caches of this process that can be cut: while cut, messages are lost; mending it reports the gap. */
export function cuttableChannels(count: number) {
  const listeners: Array<{ listener: (m: Uint8Array) => void; onGap?: () => void }> = []
  const state = { cut: false }
  const channels: InvalidationChannel[] = Array.from({ length: count }, () => ({
    async publish(message) {
      if (!state.cut) for (const l of listeners) l.listener(message)
    },
    subscribe(listener, onGap) {
      const entry = { listener, onGap }
      listeners.push(entry)
      return () => void listeners.splice(listeners.indexOf(entry), 1)
    },
  }))
  const mend = () => {
    state.cut = false
    for (const l of listeners) l.onGap?.()
  }
  return { channels, state, mend }
}

/** A store over `memory` whose writes (set, setMany) land only once `letGo` is called; `more` replaces other calls. */
export function heldWrites(memory: Store, more: Partial<Store> = {}): { store: Store; letGo: () => void } {
  let letGo: () => void = () => {}
  const held = new Promise<void>((resolve) => (letGo = resolve))
  const store: Store = Object.assign(Object.create(memory) as Store, {
    set: async (key: string, value: Uint8Array, options?: { ttl?: number }) => (await held, memory.set(key, value, options)),
    setMany: async (entries: Parameters<NonNullable<Store['setMany']>>[0]) => (await held, memory.setMany!(entries)),
    ...more,
  })
  return { store, letGo }
}
