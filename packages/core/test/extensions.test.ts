import { describe, expect, it } from 'vitest'
import { createCodec, StowageError, StowageErrorCode, type Extension } from '../src/index.js'
import { caught } from './helpers.js'

class Money {
  constructor(
    readonly cents: number,
    readonly currency: string,
  ) {}
}
class Euro extends Money {}

const money: Extension<Money, [number, string]> = {
  type: 1,
  class: Money,
  encode: (m) => [m.cents, m.currency],
  decode: ([cents, currency]) => new Money(cents, currency),
}

describe('user extensions', () => {
  it('round-trip instances of a registered class, anywhere in a value', () => {
    const codec = createCodec({ extensions: [money] })
    const value = { price: new Money(1999, 'EUR'), history: [new Money(1, 'USD'), new Money(2, 'USD')], byId: new Map([[1, new Money(5, 'GBP')]]) }
    const back = codec.decode<typeof value>(codec.encode(value))
    expect(back.price).toBeInstanceOf(Money)
    expect(back).toStrictEqual(value)
  })

  it('handle subclasses through the base class extension', () => {
    const codec = createCodec({ extensions: [money] })
    expect(codec.decode(codec.encode(new Euro(5, 'EUR')))).toStrictEqual(new Money(5, 'EUR'))
  })

  it('say which extension is missing when decoding without it', () => {
    const bytes = createCodec({ extensions: [money] }).encode(new Money(1, 'EUR'))
    const error = caught(() => createCodec().decode(bytes)) as StowageError
    expect(error.code).toBe(StowageErrorCode.UNSUPPORTED_TYPE)
    expect(error.message).toContain('extension type 1')
  })

  it('may call the codec again from inside encode and decode', () => {
    const codec = createCodec({
      extensions: [
        {
          type: 2,
          class: Money,
          encode: (m: Money) => codec.encode([m.cents, m.currency]),
          decode: (bytes: Uint8Array) => {
            const [cents, currency] = codec.decode<[number, string]>(bytes)
            return new Money(cents, currency)
          },
        },
      ],
    })
    const value = [new Money(3, 'EUR'), { m: new Money(4, 'USD') }]
    expect(codec.decode(codec.encode(value))).toStrictEqual(value)
  })

  it('wrap an extension that throws into a StowageError with the cause kept', () => {
    const boom = new Error('boom')
    const codec = createCodec({ extensions: [{ ...money, encode: () => { throw boom } }] })
    const error = caught(() => codec.encode(new Money(1, 'EUR'))) as StowageError
    expect(StowageError.isInstance(error)).toBe(true)
    expect(error.cause).toBe(boom)
  })
})

describe('options', () => {
  it('refuse bad values with INVALID_ARGUMENT', () => {
    const bad: unknown[] = [
      { compress: 'sometimes' },
      { level: 10 },
      { level: 1.5 },
      { maxBytes: 0 },
      { maxBytes: 2 ** 32 },
      { maxDepth: -1 },
      { minSavings: 2 },
      { compressThreshold: -5 },
      { schemaVersion: 2 ** 32 },
      { extensions: [{ ...money, type: 64 }] },
      { extensions: [money, { ...money }] },
      { extensions: [{ type: 3 }] },
      { extensions: [{ ...money, class: () => money }] },
    ]
    for (const options of bad) {
      const error = caught(() => createCodec(options as never)) as StowageError
      expect(error?.code, JSON.stringify(options)).toBe(StowageErrorCode.INVALID_ARGUMENT)
    }
  })

  it('expose the settled values with defaults filled in', () => {
    expect(createCodec({ level: 6 }).options).toMatchObject({ compress: 'auto', level: 6, maxDepth: 100, maxBytes: 64 * 1024 * 1024 })
  })
})

describe('StowageError', () => {
  it('is recognised across copies of the library by its registry marker', () => {
    const here = new StowageError(StowageErrorCode.CORRUPT, 'x')
    expect(StowageError.isInstance(here)).toBe(true)
    // What another copy's error looks like: a different class, the same Symbol.for marker.
    const foreign = Object.assign(new Error('y'), { [Symbol.for('@stowage/core.StowageError')]: true, code: 'CORRUPT' })
    expect(StowageError.isInstance(foreign)).toBe(true)
    expect(foreign instanceof StowageError).toBe(false)
    for (const other of [new Error('z'), null, 'CORRUPT', { code: 'CORRUPT' }]) expect(StowageError.isInstance(other)).toBe(false)
  })

  it('keeps code, name and cause', () => {
    const cause = new RangeError('inner')
    const error = new StowageError(StowageErrorCode.TRUNCATED, 'outer', { cause })
    expect([error.code, error.name, error.cause, error instanceof Error]).toStrictEqual(['TRUNCATED', 'StowageError', cause, true])
  })
})
