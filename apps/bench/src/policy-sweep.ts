// How much deflate saves, and what it costs, by payload size: the data behind
// DEFAULT_COMPRESS_THRESHOLD and DEFAULT_MIN_SAVINGS. Prints a Markdown section.
import 'ioredis'
import { createCodec, DEFAULT_COMPRESS_THRESHOLD, DEFAULT_MIN_SAVINGS, inspect } from '@stowage/core'
import { medianMs } from './measure.js'
import { w1Shuffled, w2, w4 } from './workloads.js'

const never = createCodec({ compress: 'never' })
const always = createCodec({ compress: 'always' })
const post = w2()

// Realistic values of growing size: slices of a post's comments, of shuffled W1 rows, lists of tokens.
const samples: Array<[string, unknown]> = []
for (const k of [1, 2, 3, 5, 8, 13, 20, 40]) samples.push([`${k} W2 comments`, post.comments.slice(0, k)])
for (const n of [2, 4, 8, 16, 32, 64, 128]) samples.push([`${n} shuffled W1 rows`, w1Shuffled(n)])
for (const n of [1, 2, 4, 8, 16]) samples.push([`${n} W4 tokens`, Array.from({ length: n }, (_, i) => w4(i + 1))])

interface Point {
  name: string
  payload: number
  deflated: number
  extraUs: number
}
const points: Point[] = samples.map(([name, value]) => {
  const plain = never.encode(value)
  const packed = always.encode(value)
  const plainUs = medianMs(() => never.decode(never.encode(value)), 150) * 1000
  const packedUs = medianMs(() => always.decode(always.encode(value)), 150) * 1000
  return { name, payload: inspect(plain).payloadLength, deflated: packed.length - 4, extraUs: packedUs - plainUs }
})
points.sort((a, b) => a.payload - b.payload)

const saving = (p: Point) => 1 - (p.deflated + 4) / p.payload
// The smallest payload size from which every sample saves at least DEFAULT_MIN_SAVINGS.
let crossover = points[points.length - 1]!.payload
for (let i = points.length - 1; i >= 0 && saving(points[i]!) >= DEFAULT_MIN_SAVINGS; i--) crossover = points[i]!.payload

const lines = [
  'Each value encoded with `compress: \'never\'` and `\'always\'` (level 1, native zlib, ioredis loaded). Saving = 1 − deflated ÷ payload (the 4-byte length field counted); extra = added encode+decode time.',
  '',
  '| value | payload B | deflated B | saving | extra µs |',
  '|---|---|---|---|---|',
  ...points.map((p) => `| ${p.name} | ${p.payload} | ${p.deflated + 4} | ${(100 * saving(p)).toFixed(0)}% | ${p.extraUs.toFixed(1)} |`),
  '',
  `Measured crossover: from ${crossover} B up, every sample saved at least ${DEFAULT_MIN_SAVINGS * 100}% (\`DEFAULT_MIN_SAVINGS\`); below it deflate often grows the value.`,
  `\`DEFAULT_COMPRESS_THRESHOLD\` is ${DEFAULT_COMPRESS_THRESHOLD} B: ${DEFAULT_COMPRESS_THRESHOLD >= crossover ? 'at or above the crossover, with a margin: just above it the saving is ~20% (a few dozen bytes) for a fixed ~10 µs of zlib per call, both ways' : '**below the measured crossover: revisit it**'}.`,
  'With `compress: \'auto\'` a deflated form that saves less than `minSavings` is dropped, so the threshold only decides where deflate is worth trying.',
]
console.log(lines.join('\n'))
