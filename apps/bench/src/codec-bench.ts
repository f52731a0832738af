// One pass of the codec table: every method on every workload, in this one process.
// `--with-redis-client` imports ioredis first, which (ioredis 6) slows String.prototype.charCodeAt
// for the whole process (its VerbatimString subclasses String). Each workload is measured in ROUNDS
// rounds with the method order rotated, so no method always runs right after a GC-heavy one; a
// cell is the median over rounds of tinybench medians. A workload of many values (the webhook
// payloads) is timed as encoding, or decoding, all of them.
// Prints one JSON line: CodecPass. Run by run.ts; can be run alone with tsx (`--only=W2,W4`).
import { medianMs } from './measure.js'
import { realWorkloads } from './real-data.js'
import { w1, w1Shuffled, w2, w3, w4 } from './workloads.js'

export interface CodecCell {
  readonly bytes: number
  readonly encodeMs: number
  readonly decodeMs: number
}
export interface CodecRow {
  readonly workload: string
  /** Generated data (the seed article's arrays, a blog post, a token), as opposed to real data from npm packages. */
  readonly synthetic: boolean
  readonly values: number
  readonly jsonBytes: number
  readonly cells: Record<string, CodecCell>
}
export interface CodecPass {
  readonly redisClientLoaded: boolean
  readonly rows: CodecRow[]
}

const ROUNDS = 3
const synthetic = (name: string, make: () => unknown) => ({ name, synthetic: true, values: () => [make()] })
export const workloads: Array<{ name: string; synthetic: boolean; values: () => readonly unknown[] }> = [
  ...realWorkloads().map((w) => ({ name: w.name, synthetic: false, values: () => w.values })),
  synthetic('W1-1', () => w1(1)),
  synthetic('W1-100', () => w1(100)),
  synthetic('W1-1000', () => w1(1000)),
  synthetic('W1-1000 shuffled', () => w1Shuffled(1000)),
  synthetic('W1-100000', () => w1(100000)),
  synthetic('W2', () => w2()),
  synthetic('W3', () => w3()),
  synthetic('W4', () => w4()),
]

const withClient = process.argv.includes('--with-redis-client')
if (withClient) await import('ioredis')
const { methods, byteLength } = await import('./peers.js')
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

const rows: CodecRow[] = []
for (const workload of workloads) {
  if (only && !only.split(',').includes(workload.name)) continue
  const values = workload.values()
  const jsonBytes = values.reduce<number>((sum, v) => sum + byteLength(JSON.stringify(v)), 0)
  const big = jsonBytes > 1_000_000
  const samples: Record<string, { bytes: number; encode: number[]; decode: number[] }> = {}
  for (let round = 0; round < ROUNDS; round++) {
    const order = methods.map((_, i) => methods[(i + round) % methods.length]!)
    for (const method of order) {
      const stored = values.map((v) => method.encode(v))
      const encodeMs = medianMs(() => values.map((v) => method.encode(v)), big ? 150 : 200, big ? 5 : 7)
      const decodeMs = medianMs(() => stored.map((s) => method.decode(s)), big ? 150 : 200, big ? 5 : 7)
      const cell = (samples[method.name] ??= { bytes: stored.reduce((sum, s) => sum + byteLength(s), 0), encode: [], decode: [] })
      cell.encode.push(encodeMs)
      cell.decode.push(decodeMs)
    }
  }
  const cells: Record<string, CodecCell> = {}
  for (const method of methods) {
    const s = samples[method.name]!
    cells[method.name] = { bytes: s.bytes, encodeMs: median(s.encode), decodeMs: median(s.decode) }
  }
  rows.push({ workload: workload.name, synthetic: workload.synthetic, values: values.length, jsonBytes, cells })
  process.stderr.write(`  ${workload.name} done\n`)
}
const pass: CodecPass = { redisClientLoaded: withClient, rows }
console.log(JSON.stringify(pass))
