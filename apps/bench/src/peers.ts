// The methods compared in the codec table, each configured as its documentation recommends for
// throughput (reused encoder instances; native zlib, as a Node user would deflate). Every method
// maps value -> stored bytes -> value.
import { Decoder, Encoder } from '@msgpack/msgpack'
import * as stowage from '@stowage/core'
import { Packr } from 'msgpackr'
import { deserialize, serialize } from 'node:v8'
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib'
import { createCodecWith } from '../../../packages/core/src/codec/codec.js'
// The portable platform (fflate), as a browser gets it: on Node the package's "node" condition
// picks native zlib, so the bench binds the other platform file explicitly.
import { platform as portablePlatform } from '../../../packages/core/src/codec/platform/portable.js'

export interface Method {
  readonly name: string
  encode(value: unknown): Uint8Array | string
  decode(stored: Uint8Array | string): unknown
}

const utf8 = new TextEncoder()
const msgpackEncoder = new Encoder()
const msgpackDecoder = new Decoder()
const packr = new Packr({ useRecords: true })
const stowageDefault = stowage.createCodec()
const stowageNever = stowage.createCodec({ compress: 'never' })
const portableDefault = createCodecWith(portablePlatform)

/** Stowage's default codec: the subject of the targets. */
export const STOWAGE = 'Stowage (default)'
export const STOWAGE_NEVER = "Stowage, compress: 'never'"
export const JSON_GZIP = 'JSON + gzip 6'

export const methods: readonly Method[] = [
  { name: 'JSON', encode: (v) => JSON.stringify(v), decode: (s) => JSON.parse(s as string) },
  // gzip's default level is 6.
  { name: JSON_GZIP, encode: (v) => gzipSync(JSON.stringify(v)), decode: (b) => JSON.parse(gunzipSync(b as Uint8Array).toString()) },
  // encode() returns a view into the encoder's reused buffer: a cache must copy it before storing.
  { name: '@msgpack/msgpack', encode: (v) => msgpackEncoder.encode(v).slice(), decode: (b) => msgpackDecoder.decode(b as Uint8Array) },
  {
    name: '@msgpack/msgpack + deflate 1',
    encode: (v) => deflateRawSync(msgpackEncoder.encode(v), { level: 1 }),
    decode: (b) => msgpackDecoder.decode(inflateRawSync(b as Uint8Array)),
  },
  { name: 'msgpackr records', encode: (v) => packr.pack(v), decode: (b) => packr.unpack(b as Uint8Array) },
  {
    name: 'msgpackr records + deflate 1',
    encode: (v) => deflateRawSync(packr.pack(v), { level: 1 }),
    decode: (b) => packr.unpack(inflateRawSync(b as Uint8Array)),
  },
  { name: 'v8.serialize', encode: (v) => serialize(v), decode: (b) => deserialize(b as Uint8Array) },
  { name: STOWAGE, encode: (v) => stowageDefault.encode(v), decode: (b) => stowageDefault.decode(b as Uint8Array) },
  { name: STOWAGE_NEVER, encode: (v) => stowageNever.encode(v), decode: (b) => stowageNever.decode(b as Uint8Array) },
  { name: 'Stowage portable build (fflate)', encode: (v) => portableDefault.encode(v), decode: (b) => portableDefault.decode(b as Uint8Array) },
]

/** The peers the targets compare Stowage's default with (issue 9). */
export const PEERS = ['JSON', JSON_GZIP, '@msgpack/msgpack', '@msgpack/msgpack + deflate 1', 'msgpackr records', 'msgpackr records + deflate 1', 'v8.serialize']

/** Stored size in bytes: strings count as their UTF-8 length. */
export function byteLength(stored: Uint8Array | string): number {
  return typeof stored === 'string' ? utf8.encode(stored).length : stored.length
}
