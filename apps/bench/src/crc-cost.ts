// What the envelope's CRC-32 costs: its share of encode and decode time, native (Node) and
// JavaScript (the portable build's table). Prints a Markdown section.
import { createCodec, inspect } from '@stowage/core'
import * as zlib from 'node:zlib'
import { crc32 as portableCrc32 } from '../../../packages/core/src/codec/crc32.js'
import { medianMs } from './measure.js'
import { w1, w2 } from './workloads.js'

const nativeCrc32 = (zlib as unknown as { crc32: (data: Uint8Array) => number }).crc32
const never = createCodec({ compress: 'never' })
const auto = createCodec()
const lines = ['| workload | payload B | stored B | native CRC of stored µs | JS CRC of payload µs | JS CRC MB/s | decode µs (default codec) | CRC share of decode |', '|---|---|---|---|---|---|---|---|']
for (const [name, value] of [
  ['W2', w2()],
  ['W1-100000', w1(100000)],
  ['W1-1000', w1(1000)],
] as const) {
  const plain = never.encode(value)
  const payload = plain.subarray(8)
  const stored = auto.encode(value)
  const nativeUs = medianMs(() => nativeCrc32(stored), 150) * 1000
  const jsUs = medianMs(() => portableCrc32(payload), 150) * 1000
  const decodeUs = medianMs(() => auto.decode(stored), 200) * 1000
  lines.push(
    `| ${name} | ${inspect(plain).payloadLength} | ${stored.length} | ${nativeUs.toFixed(1)} | ${jsUs.toFixed(1)} | ${(payload.length / jsUs).toFixed(0)} | ${decodeUs.toFixed(1)} | ${((100 * nativeUs) / decodeUs).toFixed(1)}% |`,
  )
}
lines.push('', 'The CRC runs once on encode and once on decode, over the header and the bytes as stored (deflated or not): since format version 2 that is the deflated stream, so it costs less than it did over the inflated payload.')
console.log(lines.join('\n'))
