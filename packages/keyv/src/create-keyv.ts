// Keyv with its own serialization off, so the adapter's envelope is the only encoding: Keyv
// hands over `{ value, expires }` as an object, and the Stowage codec writes it as MessagePack.
import type { Store } from '@stowage/core'
import { Keyv, type KeyvOptions } from 'keyv'
import { createKeyvStore, KeyvStowage, type KeyvStoreOptions } from './keyv-store.js'

/** Options of {@link createKeyv}: the adapter's, plus Keyv's own (all but `store`, `serialize` and `deserialize`). */
export interface CreateKeyvOptions extends KeyvStoreOptions, Readonly<Omit<KeyvOptions, 'store' | 'serialize' | 'deserialize'>> {}

/**
 * Turns a Keyv instance's own serialization off, so its store receives `{ value, expires }`
 * objects rather than JSON text (cache-manager's README does the same for in-memory stores).
 * With the adapter of {@link createKeyvStore} underneath, values are then written by Stowage's
 * codec alone: smaller, and Dates, Maps, Sets, BigInts and bytes come back as they went in.
 * Entries this adapter stored as Keyv's JSON text before still read: the adapter parses them with
 * the deserializer Keyv had (Keyv itself parses no string once its serialization is off). Under
 * another store adapter, such entries read as misses.
 * @param keyv - a Keyv 5 instance (`new Keyv({ store })`, cache-manager's `stores`, cacheable's `secondary`).
 * @returns the same instance.
 * @throws nothing.
 */
export function withoutKeyvSerialization<K extends Keyv>(keyv: K): K {
  const parse = keyv.deserialize
  keyv.serialize = undefined
  keyv.deserialize = undefined
  if (keyv.store instanceof KeyvStowage && parse !== undefined) keyv.store.readKeyvText((text) => parse(text))
  return keyv
}

/**
 * A Keyv 5 instance over a Stowage store, with Keyv's own serialization off
 * ({@link withoutKeyvSerialization}): one line for `createCache({ stores: [createKeyv(store)] })`.
 * @param store - any Stowage {@link Store}; it stays yours (Keyv's `disconnect()` leaves it open).
 * @param options - the adapter's options (`prefix`, `codec`) and Keyv's (`namespace`, `ttl`, …).
 * @returns a Keyv instance.
 * @throws {StowageError} INVALID_ARGUMENT as {@link createKeyvStore}.
 */
export function createKeyv(store: Store, options: CreateKeyvOptions = {}): Keyv {
  const { prefix, codec, ...keyvOptions } = options
  const adapter = createKeyvStore(store, { prefix, codec })
  return withoutKeyvSerialization(new Keyv({ ...keyvOptions, store: adapter }))
}
