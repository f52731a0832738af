// The Store contract suite. Imports only the Store *type* from core (by path: core's own tests
// use this package, so a package dependency would be a cycle), and nothing from Node.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../core/src/stores/store.js'

/** Options of {@link describeStoreContract}. */
export interface StoreContractOptions {
  /** Shown in the test names. */
  readonly name: string
  /** A fresh store for each test. */
  readonly createStore: () => Store | Promise<Store>
  /** The TTL, in ms, the expiry tests use. Defaults to 100. */
  readonly ttl?: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function bytes(...values: number[]): Uint8Array {
  return new Uint8Array(values)
}

/** Byte-for-byte comparison that never touches Buffer, with a useful message. */
function expectBytes(actual: Uint8Array | undefined, expected: Uint8Array): void {
  expect(actual, 'value').toBeInstanceOf(Uint8Array)
  const a = actual as Uint8Array
  expect(a.byteLength, 'length').toBe(expected.byteLength)
  for (let i = 0; i < expected.length; i++) if (a[i] !== expected[i]) expect(`byte ${i} = ${a[i]}`).toBe(`byte ${i} = ${expected[i]}`)
}

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = []
  for await (const key of iterable) out.push(key)
  return out.sort()
}

function isStowageError(e: unknown, code?: string): boolean {
  return (
    typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[Symbol.for('@stowage/core.StowageError')] === true && (code === undefined || (e as { code?: string }).code === code)
  )
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (e) {
    return e
  }
  throw new Error('expected a rejection')
}

/**
 * Declares the contract tests for a store. Call it at the top level of a test file, then add the
 * store's own tests after it.
 */
export function describeStoreContract(options: StoreContractOptions): void {
  const ttl = options.ttl ?? 100
  describe(`Store contract: ${options.name}`, () => {
    let store: Store
    let prefix: string
    const k = (name: string) => prefix + name

    beforeEach(async () => {
      store = await options.createStore()
      prefix = `contract:${Math.random().toString(36).slice(2)}:`
    })
    afterEach(async () => {
      try {
        if (store.clear) await store.clear(prefix)
      } catch {
        // the store may have been closed by the test
      }
      await store.close?.()
    })

    describe('basic', () => {
      it('reads a missing key as undefined', async () => {
        expect(await store.get(k('missing'))).toBeUndefined()
      })
      it('returns what was set, and the latest value after an overwrite', async () => {
        await store.set(k('a'), bytes(1, 2, 3))
        expectBytes(await store.get(k('a')), bytes(1, 2, 3))
        await store.set(k('a'), bytes(9))
        expectBytes(await store.get(k('a')), bytes(9))
      })
      it('deletes, telling whether the key existed', async () => {
        await store.set(k('a'), bytes(1))
        expect(await store.delete(k('a'))).toBe(true)
        expect(await store.get(k('a'))).toBeUndefined()
        expect(await store.delete(k('a'))).toBe(false)
      })
      it('keeps keys apart exactly: case, separators, Unicode, __proto__', async () => {
        const names = ['K', 'k', 'a:b', 'a b', 'ключ', '😀', '__proto__', 'constructor']
        await Promise.all(names.map((name, i) => store.set(k(name), bytes(i))))
        for (const [i, name] of names.entries()) expectBytes(await store.get(k(name)), bytes(i))
      })
      it('keeps a key with NUL and a 65,536-character key exactly; refuses longer keys and lone surrogates', async () => {
        const long = k('x').padEnd(65_536, 'y')
        const names = [k('a\u0000b'), k('a'), k('a\u0000'), long]
        await Promise.all(names.map((name, i) => store.set(name, bytes(i))))
        for (const [i, name] of names.entries()) expectBytes(await store.get(name), bytes(i))
        if (store.keys) expect((await collect(store.keys(prefix))).filter((key) => key.includes('\u0000'))).toStrictEqual([k('a\u0000'), k('a\u0000b')].sort())
        await store.delete(long)
        // Lone surrogates have no UTF-8 form: stored, 'a\uD800' and 'a\uDFFF' would be one key.
        for (const bad of [k('a\uD800'), k('a\uDFFF'), k('\uDC00x'), long + 'z']) {
          expect(isStowageError(await rejection(store.set(bad, bytes(1))), 'INVALID_ARGUMENT'), JSON.stringify(bad.slice(-8))).toBe(true)
          expect(isStowageError(await rejection(store.get(bad)), 'INVALID_ARGUMENT')).toBe(true)
        }
        await store.set(k('😀'), bytes(5)) // a surrogate pair is fine
        expectBytes(await store.get(k('😀')), bytes(5))
      })
      it('refuses a value that is not a Uint8Array and a bad TTL with a StowageError', async () => {
        expect(isStowageError(await rejection(store.set(k('a'), 'text' as unknown as Uint8Array)))).toBe(true)
        for (const bad of [0, -5, Number.NaN, Infinity]) {
          expect(isStowageError(await rejection(store.set(k('a'), bytes(1), { ttl: bad })), 'INVALID_ARGUMENT')).toBe(true)
        }
      })
    })

    describe('binary fidelity', () => {
      it('keeps all 256 byte values in order', async () => {
        const all = new Uint8Array(256).map((_, i) => i)
        await store.set(k('all'), all)
        expectBytes(await store.get(k('all')), all)
      })
      it('keeps an empty value apart from a missing one', async () => {
        await store.set(k('empty'), new Uint8Array(0))
        expectBytes(await store.get(k('empty')), new Uint8Array(0))
      })
      it('keeps a 1-byte value and a 5 MB value', async () => {
        await store.set(k('one'), bytes(0))
        expectBytes(await store.get(k('one')), bytes(0))
        const big = new Uint8Array(5 * 1024 * 1024)
        for (let i = 0; i < big.length; i += 4093) big[i] = i % 251
        await store.set(k('big'), big)
        expectBytes(await store.get(k('big')), big)
      })
      it('stores the bytes of a view, not its whole buffer', async () => {
        const backing = new Uint8Array([7, 7, 1, 2, 3, 7, 7])
        await store.set(k('view'), backing.subarray(2, 5))
        expectBytes(await store.get(k('view')), bytes(1, 2, 3))
      })
      it('is not changed by later changes to the arrays it was given or gave', async () => {
        const value = bytes(1, 2, 3)
        await store.set(k('a'), value)
        value[0] = 99
        const read = (await store.get(k('a'))) as Uint8Array
        read[1] = 99
        expectBytes(await store.get(k('a')), bytes(1, 2, 3))
      })
    })

    describe('TTL', () => {
      it('expires an entry after its TTL', async () => {
        await store.set(k('t'), bytes(1), { ttl })
        expectBytes(await store.get(k('t')), bytes(1))
        await sleep(ttl * 2.5)
        expect(await store.get(k('t'))).toBeUndefined()
        expect(await store.delete(k('t'))).toBe(false)
      })
      it('keeps an entry without TTL', async () => {
        await store.set(k('t'), bytes(1))
        await sleep(ttl * 2.5)
        expectBytes(await store.get(k('t')), bytes(1))
      })
      it('resets the TTL on overwrite: none, or a new one', async () => {
        await store.set(k('none'), bytes(1), { ttl })
        await store.set(k('none'), bytes(2))
        await store.set(k('longer'), bytes(1), { ttl })
        await store.set(k('longer'), bytes(3), { ttl: ttl * 10 })
        await sleep(ttl * 2.5)
        expectBytes(await store.get(k('none')), bytes(2))
        expectBytes(await store.get(k('longer')), bytes(3))
      })
      it('getWithTtl gives the value and what is left of its TTL (undefined: none)', async (ctx) => {
        if (!store.getWithTtl) return ctx.skip()
        await store.set(k('left'), bytes(1), { ttl: ttl * 10 })
        await store.set(k('forever'), bytes(2))
        const left = await store.getWithTtl(k('left'))
        expectBytes(left?.value, bytes(1))
        expect(left?.ttl).toBeGreaterThan(0)
        expect(left?.ttl).toBeLessThanOrEqual(ttl * 10)
        const forever = await store.getWithTtl(k('forever'))
        expectBytes(forever?.value, bytes(2))
        expect(forever?.ttl).toBeUndefined()
        expect(await store.getWithTtl(k('missing'))).toBeUndefined()
        await store.set(k('gone'), bytes(3), { ttl })
        await sleep(ttl * 2.5)
        expect(await store.getWithTtl(k('gone'))).toBeUndefined()
      })
      it('getManyWithTtl gives what getWithTtl gives for each key, in order, and has getWithTtl beside it', async (ctx) => {
        if (!store.getManyWithTtl) return ctx.skip()
        expect(typeof store.getWithTtl).toBe('function')
        await store.set(k('left'), bytes(1), { ttl: ttl * 10 })
        await store.set(k('forever'), bytes(2))
        await store.set(k('gone'), bytes(3), { ttl })
        await sleep(ttl * 2.5)
        const found = await store.getManyWithTtl([k('left'), k('missing'), k('forever'), k('gone'), k('left')])
        expect(found).toHaveLength(5)
        expectBytes(found[0]?.value, bytes(1))
        expect(found[0]?.ttl).toBeGreaterThan(0)
        expect(found[0]?.ttl).toBeLessThanOrEqual(ttl * 10)
        expect([found[1], found[3]]).toStrictEqual([undefined, undefined])
        expectBytes(found[2]?.value, bytes(2))
        expect(found[2]?.ttl).toBeUndefined()
        expectBytes(found[4]?.value, bytes(1))
        expect(await store.getManyWithTtl([])).toStrictEqual([])
      })
    })

    describe('batch', () => {
      it('getMany returns values in order, undefined for the missing', async (ctx) => {
        if (!store.getMany) return ctx.skip()
        await store.set(k('a'), bytes(1))
        await store.set(k('c'), bytes(3))
        const values = await store.getMany([k('a'), k('b'), k('c'), k('a')])
        expect(values).toHaveLength(4)
        expectBytes(values[0], bytes(1))
        expect(values[1]).toBeUndefined()
        expectBytes(values[2], bytes(3))
        expectBytes(values[3], bytes(1))
        expect(await store.getMany([])).toStrictEqual([])
      })
      it('setMany stores every entry with its own TTL', async (ctx) => {
        if (!store.setMany) return ctx.skip()
        await store.setMany([
          { key: k('a'), value: bytes(1) },
          { key: k('b'), value: bytes(2), ttl },
          { key: k('c'), value: bytes(3), ttl: ttl * 10 },
        ])
        expectBytes(await store.get(k('b')), bytes(2))
        await sleep(ttl * 2.5)
        expectBytes(await store.get(k('a')), bytes(1))
        expect(await store.get(k('b'))).toBeUndefined()
        expectBytes(await store.get(k('c')), bytes(3))
      })
      it('deleteMany counts the keys that existed', async (ctx) => {
        if (!store.deleteMany) return ctx.skip()
        await store.set(k('a'), bytes(1))
        await store.set(k('b'), bytes(2))
        expect(await store.deleteMany([k('a'), k('b'), k('missing')])).toBe(2)
        expect(await store.get(k('a'))).toBeUndefined()
        expect(await store.deleteMany([])).toBe(0)
      })
      it('ensureMany reads each key or creates it, and raises its TTL, never lowering it', async (ctx) => {
        if (!store.ensureMany) return ctx.skip()
        await store.set(k('short'), bytes(1), { ttl })
        await store.set(k('long'), bytes(2), { ttl: ttl * 20 })
        await store.set(k('forever'), bytes(3))
        const found = await store.ensureMany([
          { key: k('short'), value: bytes(7), ttl: ttl * 10 },
          { key: k('long'), value: bytes(7), ttl },
          { key: k('forever'), value: bytes(7), ttl },
          { key: k('new'), value: bytes(4), ttl: ttl * 10 },
          { key: k('none'), value: bytes(5) },
        ])
        expect(found).toHaveLength(5)
        ;[1, 2, 3, 4, 5].forEach((n, i) => expectBytes(found[i], bytes(n)))
        await sleep(ttl * 2.5)
        for (const [name, n] of [['short', 1], ['long', 2], ['forever', 3], ['new', 4], ['none', 5]] as const) expectBytes(await store.get(k(name)), bytes(n))
        await store.ensureMany([{ key: k('short'), value: bytes(7) }])
        if (store.getWithTtl) {
          expect((await store.getWithTtl(k('short')))?.ttl).toBeUndefined()
          expect((await store.getWithTtl(k('forever')))?.ttl).toBeUndefined()
          expect((await store.getWithTtl(k('none')))?.ttl).toBeUndefined()
          expect((await store.getWithTtl(k('long')))?.ttl).toBeGreaterThan(ttl * 10)
        }
        expect(await store.ensureMany([])).toStrictEqual([])
      })
    })

    describe('prefixes', () => {
      it('clear(prefix) removes exactly the keys under that prefix', async (ctx) => {
        if (!store.clear) return ctx.skip()
        for (const name of ['a:1', 'a:2', 'ab', 'b:1']) await store.set(k(name), bytes(1))
        await store.clear(k('a:'))
        expect(await store.get(k('a:1'))).toBeUndefined()
        expect(await store.get(k('a:2'))).toBeUndefined()
        expectBytes(await store.get(k('ab')), bytes(1))
        expectBytes(await store.get(k('b:1')), bytes(1))
      })
      it('keys(prefix) lists exactly the live keys under that prefix', async (ctx) => {
        if (!store.keys) return ctx.skip()
        await store.set(k('a:1'), bytes(1))
        await store.set(k('a:2'), bytes(1))
        await store.set(k('a:gone'), bytes(1), { ttl })
        await store.set(k('b:1'), bytes(1))
        await sleep(ttl * 2.5)
        expect(await collect(store.keys(k('a:')))).toStrictEqual([k('a:1'), k('a:2')])
        expect(await collect(store.keys(k('zzz')))).toStrictEqual([])
      })
    })

    describe('concurrency', () => {
      it('100 parallel sets and gets of distinct keys all land', async () => {
        const n = Array.from({ length: 100 }, (_, i) => i)
        await Promise.all(n.map((i) => store.set(k(`p${i}`), bytes(i, i + 1))))
        const values = await Promise.all(n.map((i) => store.get(k(`p${i}`))))
        values.forEach((v, i) => expectBytes(v, bytes(i, i + 1)))
      })
      it('100 parallel sets of one key leave one whole value, never a mix', async () => {
        const n = Array.from({ length: 100 }, (_, i) => i)
        const value = (i: number) => new Uint8Array(1000).fill(i)
        await Promise.all(n.map((i) => Promise.all([store.set(k('same'), value(i)), store.get(k('same'))])))
        const final = (await store.get(k('same'))) as Uint8Array
        expect(final.byteLength).toBe(1000)
        expect(final.every((b) => b === final[0])).toBe(true)
      })
    })

    describe('bundles', () => {
      const hasBundles = (s: Store) => Boolean(s.getField && s.getFields && s.setField && s.deleteField)
      it('store, read, list and delete fields of one key', async (ctx) => {
        if (!hasBundles(store)) return ctx.skip()
        const fields = ['a', '__proto__', 'ключ', 'x:y']
        for (const [i, field] of fields.entries()) await store.setField!(k('b'), field, bytes(i, 255))
        for (const [i, field] of fields.entries()) expectBytes(await store.getField!(k('b'), field), bytes(i, 255))
        const all = await store.getFields!(k('b'))
        expect([...all.keys()].sort()).toStrictEqual([...fields].sort())
        expectBytes(all.get('__proto__'), bytes(1, 255))
        expect(await store.getField!(k('b'), 'missing')).toBeUndefined()
        expect(await store.deleteField!(k('b'), 'a')).toBe(true)
        expect(await store.deleteField!(k('b'), 'a')).toBe(false)
        expect((await store.getFields!(k('b'))).size).toBe(3)
        expect((await store.getFields!(k('none'))).size).toBe(0)
      })
      it('apply one TTL to the whole bundle, reset by each write', async (ctx) => {
        if (!hasBundles(store)) return ctx.skip()
        await store.setField!(k('t'), 'a', bytes(1), { ttl: ttl * 10 })
        await store.setField!(k('t'), 'b', bytes(2), { ttl })
        await store.setField!(k('keep'), 'a', bytes(1), { ttl })
        await store.setField!(k('keep'), 'b', bytes(2))
        await sleep(ttl * 2.5)
        expect((await store.getFields!(k('t'))).size).toBe(0)
        expect((await store.getFields!(k('keep'))).size).toBe(2)
      })
      it('keep values and bundles apart, and clear both', async (ctx) => {
        if (!hasBundles(store) || !store.clear) return ctx.skip()
        await store.setField!(k('p:b'), 'f', bytes(1))
        await store.set(k('p:v'), bytes(2))
        expect(isStowageError(await rejection(store.get(k('p:b'))), 'STORE_ERROR')).toBe(true)
        expect(isStowageError(await rejection(store.getField!(k('p:v'), 'f')), 'STORE_ERROR')).toBe(true)
        await store.clear(k('p:'))
        expect((await store.getFields!(k('p:b'))).size).toBe(0)
        expect(await store.get(k('p:v'))).toBeUndefined()
      })
    })

    describe('close', () => {
      it('rejects with a StowageError after close, and closing twice is fine', async (ctx) => {
        if (!store.close) return ctx.skip()
        await store.close()
        expect(isStowageError(await rejection(store.get(k('a'))))).toBe(true)
        expect(isStowageError(await rejection(store.set(k('a'), bytes(1))))).toBe(true)
        await store.close()
      })
    })
  })
}
