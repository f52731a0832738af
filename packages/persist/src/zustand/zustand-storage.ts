// Zustand's `persist` middleware calls its storage on every state change; a `PersistStorage` (not
// a `StateStorage` of strings) receives the state object itself, so it is encoded directly into an
// envelope: `Date`, `Map`, `Set`, `BigInt` and typed arrays survive, with no JSON round trip.
// A store's actions sit in its state as functions; JSON.stringify drops them silently and every
// Zustand user relies on that, so the top level's functions are left out here too (persist merges
// the restored state over the current one, actions included).
import { checkOptionNames, type Codec, type CodecOptions, type Store } from '@stowage/core'
import type { PersistStorage, StorageValue } from 'zustand/middleware'
import { resolveCodec } from '../shared/resolve-codec.js'
import { resolveStore } from '../shared/resolve-store.js'

/** Default `prefix` of {@link createStowageStorage}. */
export const DEFAULT_ZUSTAND_PREFIX = 'zustand:'

// The state without its top-level functions (the store's actions); anything else is kept as it is.
function withoutActions<S>(state: S): S {
  if (typeof state !== 'object' || state === null || Array.isArray(state) || Object.getPrototypeOf(state) !== Object.prototype) return state
  let out: Record<string, unknown> | undefined
  for (const key of Object.keys(state)) {
    if (typeof (state as Record<string, unknown>)[key] !== 'function') continue
    out ??= { ...(state as Record<string, unknown>) }
    delete out[key]
  }
  return (out ?? state) as S
}

/** Options of {@link createStowageStorage}. Every field is optional. */
export interface StowageStorageOptions {
  /** Where the envelopes go. Defaults to an `@stowage/idb` store over the database `dbName`. */
  readonly store?: Store
  /** The IndexedDB database of the store created when `store` is not given. Defaults to `'stowage-persist'`. */
  readonly dbName?: string
  /** Put before each `persist` `name` to make the store key. Defaults to `'zustand:'`. */
  readonly prefix?: string
  /** A codec or codec options for the envelopes. Defaults to {@link PERSIST_CODEC_OPTIONS}. */
  readonly codec?: Codec | CodecOptions
}

/** A Zustand {@link PersistStorage} of envelopes, with the {@link Store} under it. */
export interface StowageStorage<S> extends PersistStorage<S, Promise<void>> {
  /** The store the envelopes live in. */
  readonly store: Store
}

/**
 * A Zustand `PersistStorage` (the `storage` option of `persist`) that keeps the persisted state as
 * one Stowage envelope per store name in IndexedDB (by default). Writes are issued in call order.
 * The state's top-level functions (the store's actions) are left out, as `JSON.stringify` would;
 * a function deeper in the state is refused.
 *
 * @param options - see {@link StowageStorageOptions}.
 * @returns a {@link StowageStorage}. `getItem` rejects with the decoder's codes (`CHECKSUM_MISMATCH`,
 * `CORRUPT`, …) for damaged bytes, which Zustand passes to `onRehydrateStorage`; `setItem` rejects
 * with `UNSUPPORTED_TYPE` or `CYCLE` for state no envelope holds (a nested function: use `partialize`),
 * and with the store's `STORE_ERROR` or `LIMIT_EXCEEDED`.
 * @throws {StowageError} INVALID_ARGUMENT for a bad option.
 */
export function createStowageStorage<S>(options: StowageStorageOptions = {}): StowageStorage<S> {
  checkOptionNames('createStowageStorage', options, ['store', 'dbName', 'prefix', 'codec'] satisfies ReadonlyArray<keyof StowageStorageOptions>)
  const store = resolveStore(options.store, options.dbName)
  const codec = resolveCodec(options.codec)
  const prefix = options.prefix ?? DEFAULT_ZUSTAND_PREFIX
  return {
    store,
    getItem: async (name) => {
      const bytes = await store.get(prefix + name)
      return bytes === undefined ? null : codec.decode<StorageValue<S>>(bytes)
    },
    setItem: async (name, value) => {
      await store.set(prefix + name, codec.encode({ ...value, state: withoutActions(value.state) }))
    },
    removeItem: async (name) => {
      await store.delete(prefix + name)
    },
  }
}
