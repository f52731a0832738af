import { describe, expectTypeOf, it } from 'vitest'
import { createCodec, decode, encode, StowageError, StowageErrorCode, type CodecOptions, type Extension } from '../src/index.js'

describe('types', () => {
  it('encode returns Uint8Array; decode returns what you assert, unknown by default', () => {
    expectTypeOf(encode({ a: 1 })).toEqualTypeOf<Uint8Array>()
    expectTypeOf(decode(new Uint8Array())).toEqualTypeOf<unknown>()
    expectTypeOf(decode<{ a: number }>(new Uint8Array())).toEqualTypeOf<{ a: number }>()
    expectTypeOf(createCodec().decodeAsync<string[]>(new Uint8Array())).toEqualTypeOf<Promise<string[]>>()
  })

  it('levels are a literal union and modes a closed set', () => {
    expectTypeOf<{ level: 9 }>().toMatchTypeOf<CodecOptions>()
    // @ts-expect-error level 10 does not exist
    createCodec({ level: 10 })
    // @ts-expect-error unknown compression mode
    createCodec({ compress: 'sometimes' })
  })

  it('error codes narrow to a union of string literals', () => {
    expectTypeOf<StowageError['code']>().toEqualTypeOf<(typeof StowageErrorCode)[keyof typeof StowageErrorCode]>()
    expectTypeOf(StowageErrorCode.CYCLE).toEqualTypeOf<'CYCLE'>()
  })

  it('extensions tie encode and decode to the class', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const ext: Extension<Point, number> = { type: 1, class: Point, encode: (p) => p.x, decode: (x) => new Point(x) }
    expectTypeOf(ext.decode).returns.toEqualTypeOf<Point>()
    // @ts-expect-error encode must return the declared data type
    const bad: Extension<Point, number> = { type: 1, class: Point, encode: (p) => String(p.x), decode: (x) => new Point(x) }
    void bad
  })
})
