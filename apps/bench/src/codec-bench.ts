// One pass of the codec table: every method on every workload, in this one process.
// `--with-redis-client` imports ioredis first, which (ioredis 6) slows String.prototype.charCodeAt
// for the whole process: see shared/BENCHMARKS-ANCHORS.md, "Traps".
// Prints one JSON line: CodecPass. Run by run.ts; can be run alone with tsx.
import { medianMs } from './measure.js'
import { w1, w1Shuffled, w2, w3, w4 } from './workloads.js'

export interface CodecCell {
  readonly bytes: number
  readonly encodeMs: number
  readonly decodeMs: number
}
export interface CodecRow {
  readonly workload: string
  readonly jsonBytes: number
  readonly cells: Record<string, CodecCell>
}
export interface CodecPass {
  readonly redisClientLoaded: boolean
  readonly rows: CodecRow[]
}

export const workloads: Array<[string, () => unknown]> = [
  ['W1-1', () => w1(1)],
  ['W1-10', () => w1(10)],
  ['W1-100', () => w1(100)],
  ['W1-1000', () => w1(1000)],
  ['W1-1000 shuffled', () => w1Shuffled(1000)],
  ['W1-10000', () => w1(10000)],
  ['W1-100000', () => w1(100000)],
  ['W2', () => w2()],
  ['W3', () => w3()],
  ['W4', () => w4()],
]

const withClient = process.argv.includes('--with-redis-client')
if (withClient) await import('ioredis')
const { methods, byteLength } = await import('./peers.js')
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7)

const rows: CodecRow[] = []
for (const [workload, make] of workloads) {
  if (only && !only.split(',').includes(workload)) continue
  const value = make()
  const jsonBytes = byteLength(JSON.stringify(value))
  const big = jsonBytes > 1_000_000
  const cells: Record<string, CodecCell> = {}
  for (const method of methods) {
    const stored = method.encode(value)
    const encodeMs = medianMs(() => method.encode(value), big ? 200 : 300, big ? 5 : 7)
    const decodeMs = medianMs(() => method.decode(stored), big ? 200 : 300, big ? 5 : 7)
    cells[method.name] = { bytes: byteLength(stored), encodeMs, decodeMs }
  }
  rows.push({ workload, jsonBytes, cells })
  process.stderr.write(`  ${workload} done\n`)
}
const pass: CodecPass = { redisClientLoaded: withClient, rows }
console.log(JSON.stringify(pass))
