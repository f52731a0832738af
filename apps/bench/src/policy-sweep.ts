// How the compression policy was chosen: what deflate saves and costs, by payload size and level,
// on real data (the webhook payloads, slices of the countries and emoji tables, parts of
// browser-compat-data) as Stowage's MessagePack; the data behind DEFAULT_COMPRESS_THRESHOLD,
// DEFAULT_MIN_SAVINGS, LEVEL_SMALL, LEVEL_MEDIUM, LEVEL_LARGE, MEDIUM_PAYLOAD and LARGE_PAYLOAD. Native zlib, as the
// Node build deflates (with a window no larger than the payload). Prints a Markdown section.
import 'ioredis'
import {
  createCodec,
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_MIN_SAVINGS,
  LARGE_PAYLOAD,
  LEVEL_LARGE,
  LEVEL_MEDIUM,
  LEVEL_SMALL,
  MEDIUM_PAYLOAD,
} from '@stowage/core'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { browserCompatJavaScript, emojis, webhookPayloads, worldCountries } from './real-data.js'

const never = createCodec({ compress: 'never' })
const values: unknown[] = [...webhookPayloads()]
const countries = worldCountries() as unknown[]
const emoji = emojis() as unknown[]
for (const n of [1, 2, 4, 8, 16, 32, 64, 128, 250]) for (let o = 0; o + n <= countries.length; o += Math.max(n, 40)) values.push(countries.slice(o, o + n))
for (const n of [1, 4, 16, 64, 256, 1024, 1949]) for (let o = 0; o + n <= emoji.length; o += Math.max(n, 300)) values.push(emoji.slice(o, o + n))
const bcd = browserCompatJavaScript() as Record<string, Record<string, unknown>>
values.push(bcd)
for (const part of Object.values(bcd).slice(0, 6)) values.push(part)
const payloads = values.map((v) => never.encode(v).subarray(8).slice())

const windowBits = (n: number) => Math.min(15, Math.max(9, Math.ceil(Math.log2(n + 1))))
function perCall(fn: () => unknown, bytes: number): number {
  const reps = Math.max(3, Math.round(400_000 / bytes))
  for (let i = 0; i < 2; i++) fn()
  const started = process.hrtime.bigint()
  for (let i = 0; i < reps; i++) fn()
  return Number(process.hrtime.bigint() - started) / 1e3 / reps
}

const buckets: Array<[number, number, string]> = [
  [0, 512, '< 512 B'],
  [512, 1024, '512 B–1 KiB'],
  [1024, 4096, '1–4 KiB'],
  [4096, 16384, '4–16 KiB'],
  [16384, 65536, '16–64 KiB'],
  [65536, 262144, '64–256 KiB'],
  [262144, LARGE_PAYLOAD, '256 KiB–1 MiB'],
  [LARGE_PAYLOAD, Infinity, '≥ 1 MiB'],
]
const lines = [
  `${payloads.length} payloads of real data (webhook payloads, slices of world-countries and emojibase, parts of browser-compat-data), Stowage MessagePack, native zlib; ioredis loaded. "after" = deflated size + 4 bytes of length field, ÷ payload; times are per KiB of payload, medians over the bucket.`,
  '',
  '| payload | n | level | after | deflate µs/KiB | inflate µs/KiB | MessagePack encode+decode µs/KiB |',
  '|---|---|---|---|---|---|---|',
]
for (const [lo, hi, label] of buckets) {
  const inBucket = payloads.map((p, i) => [p, values[i]] as const).filter(([p]) => p.length >= lo && p.length < hi)
  if (inBucket.length === 0) continue
  const total = inBucket.reduce((n, [p]) => n + p.length, 0)
  const kib = total / 1024
  let msgpackUs = 0
  for (const [, v] of inBucket) {
    const bytes = never.encode(v)
    msgpackUs += perCall(() => never.decode(never.encode(v)), bytes.length)
    void bytes
  }
  for (const level of [1, 3, 6, 9] as const) {
    let after = 0
    let deflateUs = 0
    let inflateUs = 0
    for (const [p] of inBucket) {
      const options = { level, windowBits: windowBits(p.length), memLevel: Math.max(1, Math.min(8, windowBits(p.length) - 6)) }
      const d = deflateRawSync(p, options)
      after += d.length + 4
      deflateUs += perCall(() => deflateRawSync(p, options), p.length)
      inflateUs += perCall(() => inflateRawSync(d), p.length)
    }
    lines.push(`| ${label} | ${inBucket.length} | ${level} | ${(after / total).toFixed(3)} | ${(deflateUs / kib).toFixed(1)} | ${(inflateUs / kib).toFixed(1)} | ${level === 1 ? (msgpackUs / kib).toFixed(1) : ''} |`)
  }
}
lines.push(
  '',
  `Chosen: no deflate under ${DEFAULT_COMPRESS_THRESHOLD} B (below 512 B it saves ~15% for more time than MessagePack itself takes; 512 B–1 KiB saves more, but a fixed ~30 µs per call of zlib setup still doubles the cost of a value that small); keep the deflated form only when it saves ${DEFAULT_MIN_SAVINGS * 100}% (jemalloc, Redis's allocator, has size classes 20–25% apart, so a smaller saving seldom frees memory while every read pays the inflate); level ${LEVEL_SMALL} under ${MEDIUM_PAYLOAD / 1024} KiB (there level 6 saves at most ~9% more for up to twice the deflate time on real data, and every write pays it: a 24 kB post through Redis ran at 0.24× the pairs per second of JSON at level 6, 0.57–0.65× at level 1), level ${LEVEL_MEDIUM} from ${MEDIUM_PAYLOAD / 1024} KiB to ${LARGE_PAYLOAD / 1024 / 1024} MiB (12–14% smaller than level 1, inflate no slower, and caches are read far more than written), level ${LEVEL_LARGE} from there (level 6 costs 3–4× the deflate time there).`,
)
console.log(lines.join('\n'))
