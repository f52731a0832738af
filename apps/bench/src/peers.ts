// The methods compared in the codec table, each configured as its documentation recommends
// for throughput (reused encoder instances). Every method maps value -> stored bytes -> value.
import { Decoder, Encoder } from '@msgpack/msgpack'
import * as stowage from '@stowage/core'
import { deflateSync, inflateSync } from 'fflate'
import { Packr } from 'msgpackr'
import { gunzipSync, gzipSync } from 'node:zlib'
import superjson from 'superjson'
// The portable (fflate) build, as a browser gets it; the package's "node" condition hides it.
import * as portable from '../../../packages/core/dist/index.js'

export interface Method {
  readonly name: string
  encode(value: unknown): Uint8Array | string
  decode(stored: Uint8Array | string): unknown
}

const utf8 = new TextEncoder()
const msgpackEncoder = new Encoder()
const msgpackDecoder = new Decoder()
const packrPlain = new Packr({ useRecords: false })
const packrRecords = new Packr({ useRecords: true })
const stowageAuto = stowage.createCodec()
const stowageNever = stowage.createCodec({ compress: 'never' })
const portableAuto = portable.createCodec()

export const methods: readonly Method[] = [
  { name: 'JSON', encode: (v) => JSON.stringify(v), decode: (s) => JSON.parse(s as string) },
  { name: 'JSON + gzip (node:zlib)', encode: (v) => gzipSync(JSON.stringify(v)), decode: (b) => JSON.parse(gunzipSync(b as Uint8Array).toString()) },
  { name: '@msgpack/msgpack', encode: (v) => msgpackEncoder.encode(v), decode: (b) => msgpackDecoder.decode(b as Uint8Array) },
  {
    name: '@msgpack/msgpack + fflate L1',
    encode: (v) => deflateSync(msgpackEncoder.encode(v), { level: 1 }),
    decode: (b) => msgpackDecoder.decode(inflateSync(b as Uint8Array)),
  },
  { name: 'msgpackr, records off', encode: (v) => packrPlain.pack(v), decode: (b) => packrPlain.unpack(b as Uint8Array) },
  { name: 'msgpackr, records on', encode: (v) => packrRecords.pack(v), decode: (b) => packrRecords.unpack(b as Uint8Array) },
  {
    name: 'msgpackr records + fflate L1',
    encode: (v) => deflateSync(packrRecords.pack(v), { level: 1 }),
    decode: (b) => packrRecords.unpack(inflateSync(b as Uint8Array)),
  },
  { name: 'superjson', encode: (v) => superjson.stringify(v), decode: (s) => superjson.parse(s as string) },
  { name: 'Stowage (default)', encode: (v) => stowageAuto.encode(v), decode: (b) => stowageAuto.decode(b as Uint8Array) },
  { name: "Stowage, compress: 'never'", encode: (v) => stowageNever.encode(v), decode: (b) => stowageNever.decode(b as Uint8Array) },
  { name: 'Stowage portable build (fflate)', encode: (v) => portableAuto.encode(v), decode: (b) => portableAuto.decode(b as Uint8Array) },
]

/** Stored size in bytes: strings count as their UTF-8 length. */
export function byteLength(stored: Uint8Array | string): number {
  return typeof stored === 'string' ? utf8.encode(stored).length : stored.length
}
