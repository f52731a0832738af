import { decode as msgpackDecode, ExtensionCodec } from '@msgpack/msgpack'
import { inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import * as portable from '../src/index.js'
import * as node from '../src/node.js'
import { goldenCompressed } from './golden-vectors.js'
import { fromHex } from './helpers.js'
import { sameValue } from './same-value.js'

const values: unknown[] = [
  { post: 'x'.repeat(5000), tags: ['a', 'b'] },
  Array.from({ length: 5000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } })),
  new Map([[1, new Float64Array(3000).fill(1.5)]]),
  'tiny',
]

describe('Node (zlib) and portable (fflate) builds', () => {
  it('read each other’s bytes, sync and async, in both directions', async () => {
    for (const value of values) {
      for (const [writer, reader] of [
        [node, portable],
        [portable, node],
      ] as const) {
        const bytes = writer.encode(value)
        expect(sameValue(reader.decode(bytes), value)).toBeUndefined()
        expect(sameValue(await reader.decodeAsync(bytes), value)).toBeUndefined()
        expect(sameValue(reader.decode(await writer.encodeAsync(value)), value)).toBeUndefined()
      }
    }
  })

  it('give identical bytes sync and async (Node)', async () => {
    for (const value of values) expect(await node.encodeAsync(value)).toStrictEqual(node.encode(value))
  })

  it('give identical bytes when nothing is compressed', () => {
    for (const value of values) {
      const options = { compress: 'never' } as const
      expect(node.encode(value, options)).toStrictEqual(portable.encode(value, options))
    }
  })

  it('the Node build reads the pinned fflate-compressed golden vector', () => {
    expect(node.decode(fromHex(goldenCompressed))).toBe('abc'.repeat(100))
  })
})

// FORMAT.md promises that a plain MessagePack library plus a few lines decodes Stowage payloads.
// This is those few lines, with @msgpack/msgpack as the plain library: it must agree with Stowage.
function referenceDecode(envelope: Uint8Array): unknown {
  const view = new DataView(envelope.buffer, envelope.byteOffset, envelope.byteLength)
  const compressed = envelope[2] === 1
  let p = 4 + (envelope[3]! & 1 ? 4 : 0) + (compressed ? 4 : 0) + 4
  const body = envelope.subarray(p)
  const payload = compressed ? inflateRawSync(body) : body
  void view
  const ext = new ExtensionCodec()
  const data = (d: Uint8Array) => msgpackDecode(d, { extensionCodec: ext }) as unknown[]
  ext.register({ type: 64, encode: () => null, decode: () => undefined })
  ext.register({ type: 73, encode: () => null, decode: (d) => {
    const [n, keys, ...columns] = data(d) as [number, string[], ...unknown[][]]
    return Array.from({ length: n }, (_, i) => Object.fromEntries(keys.map((k, j) => [k, columns[j]![i]])))
  } })
  ext.register({ type: 74, encode: () => null, decode: (d) => {
    let sum = 0
    return (data(d) as number[]).map((x) => (sum += x))
  } })
  ext.register({ type: 75, encode: () => null, decode: (d) => {
    const [keys, values] = data(d) as [string[], unknown[]]
    return Object.fromEntries(keys.map((k, i) => [k, values[i]]))
  } })
  ext.register({ type: 67, encode: () => null, decode: (d) => {
    const [keys, values] = data(d) as [unknown[], unknown[]]
    return new Map(keys.map((k, i) => [k, values[i]]))
  } })
  return msgpackDecode(payload, { extensionCodec: ext })
}

describe('FORMAT.md reference decoder (@msgpack/msgpack + a few lines)', () => {
  it('decodes what Stowage writes to the same value', () => {
    const samples = [
      ...values.slice(0, 2),
      { users: { ann: { age: 1, tags: ['x'] }, bob: { age: 2, tags: [] } }, at: new Date(1700000000123), missing: undefined },
      new Map([['k', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]]),
    ]
    for (const value of samples) {
      const bytes = node.encode(value)
      expect(sameValue(referenceDecode(bytes), node.decode(bytes))).toBeUndefined()
    }
  })
})
