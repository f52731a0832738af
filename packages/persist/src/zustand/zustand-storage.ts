// Zustand's `persist` middleware calls its storage on every state change; a `PersistStorage` (not
// a `StateStorage` of strings) receives the state object itself, so it is encoded directly into an
// envelope: `Date`, `Map`, `Set`, `BigInt` and typed arrays survive, with no JSON round trip.
// A store's actions sit in its state as functions; JSON.stringify drops them silently and every
// Zustand user relies on that, so the top level's functions are left out here too (persist merges
// the restored state over the current one, actions included).
import { checkOptionNames, type Codec, type CodecOptions, type Store } from '@stowage/core'
import type { PersistStorage, StorageValue } from 'zustand/middleware'
import { newId } from '../shared/new-id.js'
import { hasPages, removalNotices, TOLD_LATE_MS } from '../shared/removal-notices.js'
import { resolveCodec } from '../shared/resolve-codec.js'
import { noticeName, resolveStore } from '../shared/resolve-store.js'

/** How long a removal record stays: a page loaded before the removal that uses the name later finds it (ms). */
const RECORD_TTL = 7 * 24 * 60 * 60 * 1000
// The removals this page made, by the ids their records hold: they do not stop this page.
const madeHere = new Set<string>()

// The store key of the record a removal of `key` leaves (no `prefix + name` of the default prefix starts so).
const recordKey = (key: string) => `stowage-persist-zustand-removed:${key}`

// Stops a name whose removal record says another page removed it after this page was loaded.
function stopIfRemovedSinceLoad(codec: Codec, bytes: Uint8Array | undefined, stop: () => void): void {
  if (bytes === undefined) return
  let record: { id?: unknown; at?: unknown }
  try {
    record = codec.decode(bytes) as { id?: unknown; at?: unknown }
  } catch {
    stop() // a damaged record: it may have been a removal's
    return
  }
  if (typeof record?.at !== 'number' || (record.at > performance.timeOrigin && !madeHere.has(String(record.id)))) stop()
}

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
 * a function deeper in the state is refused. `removeItem` (`persist.clearStorage()`, a sign-out)
 * tells the other open pages of the origin at once: they may hold the signed-out user's state,
 * so they write and read nothing more under that name until reloaded, and delete what of theirs
 * lands after the removal.
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
  // A removal of a name (`persist.clearStorage()`: a sign-out) in another page, or by another
  // storage of this page, is told at once (removal-notices.ts; the notice's id is the name): this
  // page may still hold the signed-out user's state, so it writes and reads nothing more under that
  // name until it is reloaded. A storage made after the notice, in a page loaded before it, finds
  // the removal record the removal leaves (RECORD_TTL) at its first use of the name. A write of
  // this page may land after a removal's delete: one under way when a removal began here, one of
  // the last TOLD_LATE_MS when another page's is told, one under way when it is told; each is deleted.
  const pages = hasPages()
  const stopped = new Set<string>()
  const landed = new Map<string, number>()
  const removals = new Map<string, number>()
  const removalsOf = (name: string) => removals.get(name) ?? 0
  const notices = removalNotices(noticeName('stowage-persist-zustand', prefix, options), ({ id: name }) => {
    stopped.add(name)
    if (performance.now() - (landed.get(name) ?? -Infinity) <= TOLD_LATE_MS) void store.delete(prefix + name).catch(() => {})
  })
  // Whether the name's record could be read (once read, it is not read again; a failed read is
  // tried again at the next use, and that use reads and writes nothing).
  const checked = new Map<string, Promise<boolean>>()
  const checkRecord = (name: string) => {
    let check = checked.get(name)
    if (check === undefined) {
      check = !pages
        ? Promise.resolve(true)
        : store.get(recordKey(prefix + name)).then(
            (bytes) => (stopIfRemovedSinceLoad(codec, bytes, () => stopped.add(name)), true),
            () => (checked.delete(name), false),
          )
      checked.set(name, check)
    }
    return check
  }
  return {
    store,
    getItem: async (name) => {
      const begun = removalsOf(name)
      if (!(await checkRecord(name)) || stopped.has(name)) return null
      const bytes = await store.get(prefix + name)
      return bytes === undefined || stopped.has(name) || removalsOf(name) !== begun ? null : codec.decode<StorageValue<S>>(bytes)
    },
    setItem: async (name, value) => {
      const begun = removalsOf(name)
      if (!(await checkRecord(name)) || stopped.has(name) || removalsOf(name) !== begun) return
      await store.set(prefix + name, codec.encode({ ...value, state: withoutActions(value.state) }))
      landed.set(name, performance.now())
      if (stopped.has(name) || removalsOf(name) !== begun) await store.delete(prefix + name)
    },
    removeItem: async (name) => {
      // This page's own removal: what it writes from now on is the next user's, also after another
      // page's removal stopped it (as the whole-client persister).
      stopped.delete(name)
      removals.set(name, removalsOf(name) + 1)
      notices.tell(name)
      await store.delete(prefix + name)
      if (!pages) return
      const id = newId()
      madeHere.add(id)
      await store.set(recordKey(prefix + name), codec.encode({ id, at: Date.now() }), { ttl: RECORD_TTL })
    },
  }
}

