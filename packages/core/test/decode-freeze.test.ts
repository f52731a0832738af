// codec.decode(bytes, { freeze: true }): the same value as a plain decode, with every array and plain
// object in it frozen as deepFreeze freezes a value, built so by the decoder (what a Cache's
// in-process tier asks for); and nothing of that leaks into plain decodes after it.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepFreeze } from '../src/codec/deep-freeze.js'
import { createCodec, StowageErrorCode, type Extension } from '../src/index.js'
import { sameValue } from './same-value.js'

// The paths of the arrays and plain objects in `value` that are frozen (`frozen`) or not, walked as deepFreeze walks.
function freezable(value: unknown, frozen: boolean, path = '$', out: string[] = []): string[] {
  if (typeof value !== 'object' || value === null) return out
  const proto = Object.getPrototypeOf(value) as unknown
  if (Array.isArray(value) || proto === Object.prototype || proto === null) {
    if (Object.isFrozen(value) === frozen) out.push(path)
    for (const key of Object.keys(value)) freezable((value as Record<string, unknown>)[key], frozen, `${path}.${key}`, out)
  } else if (value instanceof Map) {
    for (const [key, item] of value) freezable(item, frozen, `${path}<${String(key)}>`, out)
  } else if (value instanceof Set) {
    let i = 0
    for (const item of value) freezable(item, frozen, `${path}{${i++}}`, out)
  }
  return out
}
const unfrozenIn = (value: unknown) => freezable(value, false)
const frozenIn = (value: unknown) => freezable(value, true)

const codecs = { never: createCodec({ compress: 'never' }), always: createCodec({ compress: 'always' }) }
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, name: `n${i % 7}`, at: 1_700_000_000_000 + i * 1000, tags: i % 3 ? ['a'] : [], nested: { deep: { x: i % 3 } } }))

const cases: Array<[string, unknown]> = [
  ['nested objects and arrays', { a: [1, { b: [[], {}] }], c: { d: { e: 'f' } } }],
  ['maps, sets, dates, regexps, typed arrays, bigints', { m: new Map<unknown, unknown>([[{ k: 1 }, { v: [1] }], ['s', new Set([{ x: 1 }, [2]])]]), d: new Date(5), r: /a+/g, u: new Uint8Array([1, 2]), big: 2n ** 70n }],
  ['records of a few rows', rows(20)],
  ['records past the compile threshold', rows(600)],
  ['records read into kept columns, nested records too', { outer: Array.from({ length: 5000 }, (_, i) => ({ i, inner: rows(2) })) }],
  ['integer runs (delta), also as a column', [Array.from({ length: 50 }, (_, i) => i * 7), rows(5000)]],
  ['a dict of same-shaped objects', { alice: { age: 30, admin: true }, bob: { age: 25, admin: false }, carol: { age: 41, admin: false } }],
  ['__proto__ as a key', JSON.parse('{"__proto__": {"x": [1]}, "y": 2}')],
]

describe('decode with freeze', () => {
  for (const [name, value] of cases) {
    it(`builds ${name} deep-frozen, and a plain decode after it builds it unfrozen`, async () => {
      for (const codec of Object.values(codecs)) {
        const bytes = codec.encode(value)
        const frozen = codec.decode(bytes, { freeze: true })
        expect(sameValue(frozen, value)).toBeUndefined()
        expect(unfrozenIn(frozen)).toStrictEqual([])
        const async = await codec.decodeAsync(bytes, { freeze: true })
        expect([sameValue(async, value), unfrozenIn(async)]).toStrictEqual([undefined, []])
        // Columns the decoder keeps across calls were not frozen with the rows built from them.
        const plain = codec.decode(bytes)
        expect([sameValue(plain, value), frozenIn(plain)]).toStrictEqual([undefined, []])
        expect(sameValue(codec.decodeEnvelope(bytes, { freeze: true }).value, value)).toBeUndefined()
      }
    })
  }

  it('refuses a freeze option that is not a boolean, rather than reading it as false', async () => {
    const bytes = codecs.never.encode({ a: 1 })
    expect(() => codecs.never.decode(bytes, { freeze: 'yes' } as never)).toThrow(expect.objectContaining({ code: StowageErrorCode.INVALID_ARGUMENT, message: 'the freeze option must be a boolean, got string' }) as Error)
    await expect(codecs.never.decodeAsync(bytes, { freeze: 1 } as never)).rejects.toMatchObject({ code: StowageErrorCode.INVALID_ARGUMENT })
  })

  it('freezes exactly what deepFreeze freezes, for any value', () => {
    const codec = codecs.never
    fc.assert(
      fc.property(fc.anything({ withMap: true, withSet: true, withDate: true, withBigInt: true, withTypedArray: true }), (value) => {
        const bytes = codec.encode(value)
        const frozen = codec.decode(bytes, { freeze: true })
        const after = codec.decode(bytes)
        deepFreeze(after)
        expect(sameValue(frozen, value)).toBeUndefined()
        expect(frozenIn(frozen)).toStrictEqual(frozenIn(after))
        expect(unfrozenIn(frozen)).toStrictEqual([])
      }),
      { numRuns: 300 },
    )
  })

  it("hands an extension's decode its data unfrozen, and freezes a plain object it returns", () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const seen: boolean[] = []
    const point: Extension<Point, { x: number; trail: number[] }> = {
      type: 7,
      class: Point,
      encode: (p) => ({ x: p.x, trail: [p.x] }),
      decode: (data) => {
        seen.push(Object.isFrozen(data), Object.isFrozen(data.trail))
        data.trail.push(0) // an extension may change what it was given
        return new Point(data.x)
      },
    }
    const asPlain: Extension<Point, number> = { type: 8, class: Point, encode: (p) => p.x, decode: (x) => ({ x, list: [x] }) as never }
    const value = { p: new Point(3), list: [new Point(4)] }
    const back = createCodec({ extensions: [point] }).decode<typeof value>(createCodec({ extensions: [point] }).encode(value), { freeze: true })
    expect([back.p.x, back.list[0]!.x, seen]).toStrictEqual([3, 4, [false, false, false, false]])
    expect([Object.isFrozen(back), Object.isFrozen(back.list), Object.isFrozen(back.p)]).toStrictEqual([true, true, false])
    const plain = createCodec({ extensions: [asPlain] })
    const got = plain.decode<{ p: { x: number; list: number[] } }>(plain.encode({ p: new Point(5) }), { freeze: true })
    expect([got.p.x, Object.isFrozen(got.p), Object.isFrozen(got.p.list)]).toStrictEqual([5, true, true])
  })
})
