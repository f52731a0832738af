// The behaviours unstorage's own driver tests check (its test/drivers/utils.ts, which it does not
// export), written afresh for this driver: each test gets a fresh storage on a key base of its
// own, so no test leans on another's leftovers or on the order they run in.
import { describe, expect, it } from 'vitest'
import type { Driver, Storage, StorageValue } from 'unstorage'

/** What {@link describeDriverCases} needs. */
export interface DriverCasesOptions {
  readonly name: string
  /** unstorage's `createStorage` (of the version under test). */
  readonly createStorage: (options: { driver: Driver }) => Storage
  /** unstorage's `restoreSnapshot` (of the version under test). */
  readonly restoreSnapshot: (storage: Storage, snapshot: Record<string, StorageValue>) => Promise<void>
  /** A fresh driver whose keys no other test sees. */
  readonly createDriver: () => Driver
}

export function describeDriverCases(options: DriverCasesOptions): void {
  const { createStorage, restoreSnapshot, createDriver } = options
  const fresh = () => createStorage({ driver: createDriver() })

  describe(`unstorage driver cases: ${options.name}`, () => {
    it('takes a snapshot in and reads it back', async () => {
      const storage = fresh()
      await restoreSnapshot(storage, { greeting: 'hello', 'nested:item': { n: 1 } })
      expect(await storage.getItem('greeting')).toBe('hello')
      expect(await storage.getItem('nested:item')).toEqual({ n: 1 })
    })

    it('starts empty: no item, null for a missing one, no keys', async () => {
      const storage = fresh()
      expect(await storage.hasItem('a:b')).toBe(false)
      expect(await storage.getItem('c:d')).toBeNull()
      expect(await storage.getKeys()).toEqual([])
    })

    it('sets and gets items; a query string is not part of the key', async () => {
      const storage = fresh()
      await storage.setItem('one:a', 'some text')
      await storage.setItem('two:a', 'some text')
      await storage.setItem('three:a?version=1', 'queried')
      expect(await storage.hasItem('one:a')).toBe(true)
      expect(await storage.getItem('one:a')).toBe('some text')
      expect(await storage.getItem('three:a?version=2')).toBe('queried')
      expect(await storage.getItem('three:a')).toBe('queried')
    })

    it('lists keys, all of them or under a base, without a query string', async () => {
      const storage = fresh()
      await storage.setItem('one:a', 'x')
      await storage.setItem('two:a', 'x')
      await storage.setItem('three:a?version=1', 'x')
      await storage.setItem('one0:a', 'x')
      expect((await storage.getKeys()).sort()).toEqual(['one0:a', 'one:a', 'three:a', 'two:a'].sort())
      expect(await storage.getKeys('one')).toEqual(['one:a'])
      expect(await storage.getKeys('one:')).toEqual(['one:a'])
    })

    it('lists keys down to a depth', async () => {
      const storage = fresh()
      for (const key of ['top', 'l0:l1:l2a', 'l0:l1:l2b', 'l0:l1a', 'l0:l1b']) await storage.setItem(key, 'x')
      expect(await storage.getKeys(undefined, { maxDepth: 0 })).toEqual(['top'])
      expect((await storage.getKeys(undefined, { maxDepth: 1 })).sort()).toEqual(['l0:l1a', 'l0:l1b', 'top'])
      expect((await storage.getKeys(undefined, { maxDepth: 2 })).sort()).toEqual(['l0:l1:l2a', 'l0:l1:l2b', 'l0:l1a', 'l0:l1b', 'top'])
    })

    it('keeps objects and primitives through unstorage’s JSON, with / in keys', async () => {
      const storage = fresh()
      await storage.setItem('/data/object.json', { json: 'works', list: [1, 2] })
      await storage.setItem('/data/flag.json', true)
      expect(await storage.getItem('/data/object.json')).toEqual({ json: 'works', list: [1, 2] })
      expect(await storage.getItem('data:flag.json')).toBe(true)
    })

    it('stores what toJSON() gives, text or object', async () => {
      const storage = fresh()
      await storage.setItem('as-text', { toJSON: () => 'SERIALIZED' })
      await storage.setItem('as-object', { toJSON: () => ({ serialized: 'works' }) })
      expect(await storage.getItem('as-text')).toBe('SERIALIZED')
      expect(await storage.getItem('as-object')).toEqual({ serialized: 'works' })
    })

    it('refuses a class instance unstorage cannot turn into JSON', async () => {
      const storage = fresh()
      class Opaque {}
      await expect(storage.setItem('bad', new Opaque())).rejects.toThrow('[unstorage] Cannot stringify value!')
      expect(await storage.hasItem('bad')).toBe(false)
    })

    it('keeps raw bytes exact: every byte value, an empty value, bytes inside a larger buffer', async () => {
      const storage = fresh()
      const all = Uint8Array.from({ length: 256 }, (_, i) => i)
      await storage.setItemRaw('raw:all.bin', all)
      const back = (await storage.getItemRaw('raw:all.bin')) as Uint8Array
      expect(back).toBeInstanceOf(Uint8Array)
      expect([...back]).toEqual([...all])
      await storage.setItemRaw('raw:empty.bin', new Uint8Array(0))
      expect(((await storage.getItemRaw('raw:empty.bin')) as Uint8Array).byteLength).toBe(0)
      const window = new Uint8Array([9, 9, 1, 2, 3, 9]).subarray(2, 5)
      await storage.setItemRaw('raw:window.bin', window)
      expect([...((await storage.getItemRaw('raw:window.bin')) as Uint8Array)]).toEqual([1, 2, 3])
    })

    it('sets several items at once', async () => {
      const storage = fresh()
      await storage.setItems<StorageValue>([
        { key: 't:1', value: 'one' },
        { key: 't:2', value: { n: 2 } },
        { key: 't:3', value: 3 },
      ])
      expect(await storage.getItem('t:1')).toBe('one')
      expect(await storage.getItem('t:2')).toEqual({ n: 2 })
      expect(await storage.getItem('t:3')).toBe(3)
    })

    it('gets several items at once, keys without their query string, null for a missing one', async () => {
      const storage = fresh()
      await storage.setItem('v3:a?q=1', 'third')
      await storage.setItem('v2:a', 'second')
      await storage.setItem('v1:a', 'first')
      expect(await storage.getItems([{ key: 'v1:a' }, 'v2:a', { key: 'v3:a?q=1' }, 'v4:none'])).toEqual([
        { key: 'v1:a', value: 'first' },
        { key: 'v2:a', value: 'second' },
        { key: 'v3:a', value: 'third' },
        { key: 'v4:none', value: null },
      ])
    })

    it('returns falsy values as they were set: 0, false, the empty string', async () => {
      const storage = fresh()
      await storage.setItem('zero', 0)
      await storage.setItem('no', false)
      await storage.setItem('empty', '')
      expect(await storage.getItem('zero')).toBe(0)
      expect(await storage.getItem('no')).toBe(false)
      expect(await storage.getItem('empty')).toBe('')
    })

    it('removes an item (and, asked to, its meta)', async () => {
      const storage = fresh()
      await storage.setItem('gone', 'x')
      await storage.setMeta('gone', { note: 'meta' })
      await storage.removeItem('gone', { removeMeta: true })
      expect(await storage.hasItem('gone')).toBe(false)
      expect(await storage.getItem('gone')).toBeNull()
      expect(await storage.getKeys()).toEqual([])
    })

    it('clears everything, and clears an empty storage too', async () => {
      const storage = fresh()
      await storage.setItem('one:a', 'x')
      await storage.setItem('two:b:c', 'x')
      await storage.clear()
      expect(await storage.getKeys()).toEqual([])
      await storage.clear()
      expect(await storage.getKeys()).toEqual([])
    })

    // unstorage's own clear(base) reaches only mounts under the base, so the driver is asked directly.
    it('clears under a base only, when the driver is asked for one', async () => {
      const driver = createDriver()
      const storage = createStorage({ driver })
      await storage.setItem('keep:a', 'x')
      await storage.setItem('drop0:a', 'x')
      await storage.setItem('drop:a', 'x')
      await storage.setItem('drop:b:c', 'x')
      await driver.clear?.('drop:', {})
      expect((await storage.getKeys()).sort()).toEqual(['drop0:a', 'keep:a'])
      await storage.clear()
      expect(await storage.getKeys()).toEqual([])
      await storage.clear()
      expect(await storage.getKeys()).toEqual([])
    })
  })
}
