// What each decoder and encoder choice buys, measured on the primitives themselves (issue 9,
// point 1), with ioredis loaded as in the codec table. Prints a Markdown section.
import 'ioredis'
import { Encoder as MsgpackEncoder } from '@msgpack/msgpack'
import { createCodec } from '@stowage/core'
import { crc32 as nativeCrc32 } from 'node:zlib'
import { crc32Range } from '../../../packages/core/src/codec/crc32.js'
import { webhookPayloads } from './real-data.js'

function ns(fn: () => unknown, reps = 200_000): number {
  for (let i = 0; i < reps / 10; i++) fn()
  const started = process.hrtime.bigint()
  for (let i = 0; i < reps; i++) fn()
  return Number(process.hrtime.bigint() - started) / reps
}
const rows: Array<[string, string, string]> = []
let sink: unknown

// 1. Building objects of known shapes: a keyed store per property vs a compiled object literal.
const keys = ['login', 'id', 'node_id', 'avatar_url', 'gravatar_id', 'url', 'html_url', 'followers_url', 'following_url', 'gists_url', 'starred_url', 'subscriptions_url', 'organizations_url', 'repos_url', 'events_url', 'received_events_url', 'type', 'site_admin']
const shapes = Array.from({ length: 40 }, (_, s) => keys.map((k) => `${k}${s || ''}`))
const vals = keys.map((_, i) => (i % 3 ? `v${i}` : i))
const literals = shapes.map((ks) => new Function('v', `return {${ks.map((k, j) => `${JSON.stringify(k)}:v[${j}]`).join(',')}}`) as (v: unknown[]) => object)
let s = 0
const stores = ns(() => {
  const ks = shapes[s++ % 40]!
  const o: Record<string, unknown> = {}
  for (let j = 0; j < ks.length; j++) o[ks[j]!] = vals[j]
  return o
}, 100_000)
s = 0
const literal = ns(() => literals[s++ % 40]!(vals), 100_000)
rows.push(['object of 18 keys, 40 shapes in turn: keyed stores → compiled literal (the shape book)', `${stores.toFixed(0)} ns → ${literal.toFixed(0)} ns`, `${(stores / literal).toFixed(1)}×`])

// 2. Decoding ASCII strings: a TextDecoder call each → substrings of one byte-per-char window.
const strings = webhookPayloads().flatMap((p) => JSON.stringify(p).match(/"[^"\\]{20,80}"/g) ?? []).slice(0, 2000).map((q) => q.slice(1, -1))
const utf8 = new TextEncoder()
const blob = utf8.encode(strings.join(''))
const offsets: Array<[number, number]> = []
let at = 0
for (const str of strings) offsets.push([at, (at += str.length)])
const decoder = new TextDecoder()
const perCall = ns(() => offsets.map(([a, b]) => decoder.decode(blob.subarray(a, b))), 300) / offsets.length
const windowed = ns(() => {
  const window = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, s: number, e: number): string }).latin1Slice.call(blob, 0, blob.length)
  return offsets.map(([a, b]) => window.substring(a, b))
}, 300) / offsets.length
rows.push([`ASCII string of 20–80 chars (${strings.length} from the webhooks): TextDecoder each → window substring`, `${perCall.toFixed(0)} ns → ${windowed.toFixed(0)} ns`, `${(perCall / windowed).toFixed(1)}×`])

// 3. Writing short strings with ioredis loaded: a native call each vs a JavaScript loop.
const buf = Buffer.allocUnsafeSlow(1024)
const short = ['read:posts', 'write:comments', 'profile', 'u_8f3a2c', 'open', 'User']
let k = 0
const utf8Write = (buf as unknown as { utf8Write(s: string, at: number): number }).utf8Write.bind(buf)
const native = ns(() => utf8Write(short[k++ % short.length]!, 0))
k = 0
const loop = ns(() => {
  const str = short[k++ % short.length]!
  for (let i = 0; i < str.length; i++) buf[i] = str.charCodeAt(i)
})
rows.push(['a short string (4–14 chars) with ioredis loaded: Buffer.utf8Write → charCodeAt loop', `${native.toFixed(0)} ns → ${loop.toFixed(0)} ns`, `${(native / loop).toFixed(1)}×`])

// 4. The envelope of a small value: an exact-length array of its own → a view into a shared slab.
const own = ns(() => new Uint8Array(126))
const slab = new Uint8Array(64 * 1024)
let used = 0
const pooled = ns(() => {
  if (used + 126 > slab.length) used = 0
  const out = slab.subarray(used, used + 126)
  used += 128
  return out
})
rows.push(['126-byte result (V8 keeps typed arrays over 64 bytes off-heap): new Uint8Array → view into a 64 KiB slab', `${own.toFixed(0)} ns → ${pooled.toFixed(0)} ns`, `${(own / pooled).toFixed(1)}×`])

// 5. CRC-32 of a small envelope: native zlib → the JavaScript table below 192 bytes.
const small = new Uint8Array(128).map((_, i) => i * 7)
rows.push(['CRC-32 of 128 bytes: zlib.crc32 → JavaScript slice-by-8', `${ns(() => nativeCrc32(small)).toFixed(0)} ns → ${ns(() => crc32Range(small, 0, small.length)).toFixed(0)} ns`, `${(ns(() => nativeCrc32(small)) / ns(() => crc32Range(small, 0, small.length))).toFixed(1)}×`])

// 6. Shapes, decoded by the same decoder: the webhooks as plain maps (@msgpack/msgpack's bytes in an envelope) → as Stowage writes them.
const hooks = webhookPayloads()
const never = createCodec({ compress: 'never' })
const plainEncoder = new MsgpackEncoder()
function seal(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + payload.length)
  out.set([0xc1, 2, 0, 0])
  out.set(payload, 8)
  new DataView(out.buffer).setUint32(4, nativeCrc32(payload, nativeCrc32(out.subarray(0, 4))))
  return out
}
const asMaps = hooks.map((h) => seal(plainEncoder.encode(h)))
const asShapes = hooks.map((h) => never.encode(h))
const mapsMs = ns(() => asMaps.map((b) => never.decode(b)), 40) / 1e6
const shapesMs = ns(() => asShapes.map((b) => never.decode(b)), 40) / 1e6
rows.push(['decoding the 329 webhook payloads: as plain maps → with shapes', `${mapsMs.toFixed(1)} ms → ${shapesMs.toFixed(1)} ms`, `${(mapsMs / shapesMs).toFixed(1)}×`])
sink = undefined
void sink

console.log(
  [
    'Each line times one primitive before and after the change, in this process (ioredis loaded).',
    '',
    '| change | before → after | gain |',
    '|---|---|---|',
    ...rows.map(([what, figures, gain]) => `| ${what} | ${figures} | ${gain} |`),
  ].join('\n'),
)
