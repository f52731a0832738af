// Preset dictionaries (issue 9): what a dictionary trained on other values does to W4 session
// tokens and to GitHub webhook payloads held out of the training set, by dictionary size, and what
// it costs per value. Prints a Markdown section, then one line `RESULT {json}` for run.ts.
import 'ioredis'
import { encode as msgpackEncode } from '@msgpack/msgpack'
import { createCodec, trainDictionary } from '@stowage/core'
import { medianMs } from './measure.js'
import { webhookPayloads } from './real-data.js'
import { w4 } from './workloads.js'

const lines: string[] = []
const f = (n: number, d = 3) => n.toFixed(d)
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] as number

// W4: train on 500 tokens, measure 100 others.
const tokensTrain = Array.from({ length: 500 }, (_, i) => w4(i + 1))
const tokensTest = Array.from({ length: 100 }, (_, i) => w4(10_000 + i))
const plain = tokensTest.reduce((sum, v) => sum + msgpackEncode(v).length, 0) / tokensTest.length
const noDict = createCodec()
const sample = tokensTest[0]
const sampleBytes = noDict.encode(sample)
const baseline = { encodeUs: medianMs(() => noDict.encode(sample)) * 1000, decodeUs: medianMs(() => noDict.decode(sampleBytes)) * 1000 }
lines.push(
  'W4 session tokens: a dictionary trained on 500 tokens, measured on 100 others (per token; plain MessagePack is @msgpack/msgpack).',
  '',
  '| dictionary | train ms | envelope B | ×plain MessagePack | encode µs | decode µs |',
  '|---|---|---|---|---|---|',
  `| none | — | ${f(tokensTest.reduce((s, v) => s + noDict.encode(v).length, 0) / tokensTest.length, 1)} | ${f(tokensTest.reduce((s, v) => s + noDict.encode(v).length, 0) / tokensTest.length / plain)} | ${f(baseline.encodeUs, 2)} | ${f(baseline.decodeUs, 2)} |`,
)
const w4Ratios: Record<number, number> = {}
for (const size of [1024, 4096, 16384]) {
  const started = performance.now()
  const dict = trainDictionary(tokensTrain, { size })
  const trainMs = performance.now() - started
  const codec = createCodec({ dictionaries: [dict] })
  const bytes = tokensTest.reduce((s, v) => s + codec.encode(v).length, 0) / tokensTest.length
  const encoded = codec.encode(sample)
  const encodeUs = medianMs(() => codec.encode(sample)) * 1000
  const decodeUs = medianMs(() => codec.decode(encoded)) * 1000
  w4Ratios[size] = bytes / plain
  lines.push(`| ${dict.length} B | ${f(trainMs, 0)} | ${f(bytes, 1)} | ${f(bytes / plain)} | ${f(encodeUs, 2)} | ${f(decodeUs, 2)} |`)
}

// Webhooks: train on two thirds, measure each payload of the other third.
const hooks = webhookPayloads()
const train = hooks.filter((_, i) => i % 3 !== 0)
const test = hooks.filter((_, i) => i % 3 === 0)
const jsonBytes = test.reduce<number>((sum, v) => sum + Buffer.byteLength(JSON.stringify(v)), 0)
const withoutBytes = test.map((v) => noDict.encode(v))
const without = withoutBytes.map((b) => b.length)
lines.push(
  '',
  `GitHub webhook payloads: a dictionary trained on ${train.length} payloads, measured on the ${test.length} others (each alone, as a cache stores them).`,
  '',
  '| dictionary | train ms | bytes ×without, all | median payload | 90th percentile | worst payload | bytes ×JSON | encode ms (all) | decode ms (all) |',
  '|---|---|---|---|---|---|---|---|---|',
  `| none | — | 1 | 1 | 1 | 1 | ${f(without.reduce((a, b) => a + b, 0) / jsonBytes)} | ${f(medianMs(() => test.map((v) => noDict.encode(v))), 2)} | ${f(medianMs(() => withoutBytes.map((b) => noDict.decode(b))), 2)} |`,
)
const hookResults: Record<number, { median: number; worst: number }> = {}
for (const size of [4096, 16384, 32768]) {
  const started = performance.now()
  const dict = trainDictionary(train, { size })
  const trainMs = performance.now() - started
  const codec = createCodec({ dictionaries: [dict] })
  const encoded = test.map((v) => codec.encode(v))
  const ratios = encoded.map((b, i) => b.length / (without[i] as number))
  const total = encoded.reduce((sum, b) => sum + b.length, 0)
  hookResults[size] = { median: quantile(ratios, 0.5), worst: quantile(ratios, 1) }
  lines.push(
    `| ${dict.length} B | ${f(trainMs, 0)} | ${f(total / without.reduce((a, b) => a + b, 0))} | ${f(quantile(ratios, 0.5))} | ${f(quantile(ratios, 0.9))} | ${f(quantile(ratios, 1))} | ${f(total / jsonBytes)} | ${f(medianMs(() => test.map((v) => codec.encode(v))), 2)} | ${f(medianMs(() => encoded.map((b) => codec.decode(b))), 2)} |`,
  )
}
lines.push(
  '',
  'zlib loads the dictionary into its window at every deflate (its cost grows with the dictionary); inflate copies it. Keep dictionaries small for small values.',
)
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify({ w4: w4Ratios, webhooks: hookResults })}`)
