// Bundles: fields grouped under one store key (a Redis hash), each field its own envelope, read,
// written and reported as the cache's values are. The façade (cache.ts) hands out one per key;
// it works through the namespace's reads, writes and observer, never through the façade.
import type { Bundle, CacheSetOptions } from './cache-types.js'
import type { CacheObserver } from './cache-observer.js'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'
import type { Store } from '../stores/store.js'
import { checkTtl } from '../stores/validate.js'
import { checkOptionNames } from '../errors/option-names.js'
import type { Reads } from './reads.js'
import type { Shared } from './shared.js'
import type { Writes } from './writes.js'
import { SET_OPTION_NAMES } from './load-settings.js'

/**
 * The bundle under `key` (store key `full`), over the store's bundle abilities.
 * @param key - the bundle's key, relative to the namespace (checked by the caller).
 * @returns the {@link Bundle}.
 * @throws {StowageError} INVALID_ARGUMENT for a store without the bundle abilities.
 */
export function openBundle<V>(key: string, full: string, shared: Shared, reads: Reads, writes: Writes, observer: CacheObserver): Bundle<V> {
  const { store } = shared
  if (!store.getField || !store.getFields || !store.setField || !store.deleteField) {
    throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `the ${store.name} store cannot hold bundles`)
  }
  const { getField, getFields, setField, deleteField } = store as Required<Store>
  const label = (field: string) => `${key}#${field}`
  return {
    key,
    get: async <T = V>(field: string): Promise<T | undefined> => {
      let bytes: Uint8Array | undefined
      try {
        bytes = await getField.call(store, full, field)
      } catch (e) {
        return observer.readFailed(label(field), e, 'bundle')
      }
      return (await reads.open(label(field), bytes, 'bundle', true, () => deleteField.call(store, full, field)))?.value as T | undefined
    },
    set: async (field: string, value: V, options?: CacheSetOptions): Promise<void> => {
      if (options !== undefined) checkOptionNames('bundle set', options, SET_OPTION_NAMES)
      const ttl = options?.ttl ?? shared.ttl
      checkTtl(ttl)
      const encoded = await writes.encode(value, undefined)
      try {
        const writing = setField.call(store, full, field, encoded.bytes, { ttl })
        shared.recent?.record(full, writing)
        await writing
      } catch (e) {
        observer.writeFailed('bundle', label(field), e, false)
        return
      }
      observer.wrote(label(field), value, encoded)
    },
    getAll: async <T = V>(): Promise<Map<string, T>> => {
      let fields: Map<string, Uint8Array>
      try {
        fields = await getFields.call(store, full)
      } catch (e) {
        observer.readFailed(key, e, 'bundle')
        return new Map()
      }
      const out = new Map<string, T>()
      for (const [field, bytes] of fields) {
        const entry = await reads.open(label(field), bytes, 'bundle', true, () => deleteField.call(store, full, field))
        if (entry !== undefined) out.set(field, entry.value as T)
      }
      return out
    },
    delete: async (field: string): Promise<boolean> => {
      try {
        const existed = await deleteField.call(store, full, field)
        if (existed) observer.counters.deletes++
        return existed
      } catch (e) {
        observer.writeFailed('bundle', label(field), e, false)
        return false
      }
    },
  }
}
