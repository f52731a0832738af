// What decoding W1-N costs the garbage collector, without a server around it (issue 25, item 3):
// Stowage's decode (from the bytes Redis holds, deflated, and uncompressed) against msgpackr's
// unpack as the article uses it, each in a loop that keeps the last `--live` values reachable (as
// the article's server keeps ~10 responses in flight). Main-thread GC time from PerformanceObserver
// 'gc', young-generation collections and their mean pause, per decode. Each method runs in a
// fresh process (the first method in a process pays for growing the heap), three times in turn,
// with V8's defaults and without allocation-site pretenuring. Prints Markdown.
//
//   pnpm --filter @stowage/bench exec tsx src/decode-gc.ts [--n 10000] [--live 10] [--ms 3000]
import { createCodec } from '@stowage/core'
import { Packr } from 'msgpackr'
import { execFileSync } from 'node:child_process'
import { constants, PerformanceObserver, performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { w1 } from './workloads.js'

const { values } = parseArgs({
  options: { n: { type: 'string', default: '10000' }, live: { type: 'string', default: '10' }, ms: { type: 'string', default: '3000' }, only: { type: 'string' } },
})
const n = Number(values.n)
const live = Number(values.live)
const ms = Number(values.ms)

let gcMs = 0
let minor = 0
let minorMs = 0
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      minor++
      minorMs += e.duration
    }
  }
}).observe({ entryTypes: ['gc'] })

const value = w1(n)
const packr = new Packr({ maxSharedStructures: 8160, structures: [] })
const packed = packr.pack(value)
const stowage = createCodec()
const deflated = stowage.encode(value)
const plain = createCodec({ compress: 'never' }).encode(value)

const methods: Array<[string, () => unknown]> = [
  ['msgpackr unpack (records, as the article)', () => packr.unpack(packed)],
  [`Stowage decode, deflated (${deflated.length} B)`, () => stowage.decode(deflated)],
  [`Stowage decode, uncompressed (${plain.length} B)`, () => stowage.decode(plain)],
]

const tick = () => new Promise((resolve) => setImmediate(resolve))

async function measure(decode: () => unknown): Promise<{ perDecodeUs: number; gcShare: number; scavengesPer1000: number; meanScavengeMs: number }> {
  const kept: unknown[] = new Array(live)
  for (let i = 0; i < 200; i++) kept[i % live] = decode() // warm-up
  await tick() // let the observer deliver the warm-up's entries before counting
  const [gc0, minor0, minorMs0] = [gcMs, minor, minorMs]
  const start = performance.now()
  let count = 0
  while (performance.now() - start < ms) {
    kept[count++ % live] = decode()
    if (count % 8 === 0) await tick()
  }
  const wall = performance.now() - start
  await tick()
  const scavenges = minor - minor0
  return { perDecodeUs: (wall / count) * 1000, gcShare: (gcMs - gc0) / wall, scavengesPer1000: (scavenges / count) * 1000, meanScavengeMs: scavenges === 0 ? Number.NaN : (minorMs - minorMs0) / scavenges }
}

if (values.only !== undefined) {
  console.log(JSON.stringify(await measure(methods[Number(values.only)]![1])))
} else {
  type Run = Awaited<ReturnType<typeof measure>>
  // V8 decides per allocation site whether to allocate in the old generation (pretenuring) from
  // how many of its objects survive; the second table turns that off to show what it decides.
  const table = (flags: string[], title: string) => {
    const runs: Run[][] = methods.map(() => [])
    for (let round = 0; round < 3; round++) {
      methods.forEach((_, i) => {
        const out = execFileSync(process.execPath, [...flags, ...process.execArgv, fileURLToPath(import.meta.url), '--n', String(n), '--live', String(live), '--ms', String(ms), '--only', String(i)], { encoding: 'utf8' })
        runs[i]!.push(JSON.parse(out.trim().split('\n').pop()!) as Run)
      })
    }
    return [
      title,
      '',
      '| method | per decode (best) | GC share of the loop, each run | young-generation GCs per 1,000 decodes, each run | mean young-generation pause, each run |',
      '|---|---|---|---|---|',
      ...methods.map(([name], i) => {
        const r = runs[i]!
        const each = (f: (x: Run) => string) => r.map(f).join(', ')
        return `| ${name} | ${Math.min(...r.map((x) => x.perDecodeUs)).toFixed(0)} µs | ${each((x) => `${(x.gcShare * 100).toFixed(0)}%`)} | ${each((x) => x.scavengesPer1000.toFixed(0))} | ${each((x) => `${x.meanScavengeMs.toFixed(1)} ms`)} |`
      }),
    ].join('\n')
  }
  const head = `W1-${n.toLocaleString('en')}, the last ${live} values kept reachable, ${ms / 1000} s per run, each run in a fresh process, three rounds`
  console.log([table([], `${head}, V8's defaults:`), '', table(['--no-allocation-site-pretenuring'], `${head}, \`--no-allocation-site-pretenuring\`:`)].join('\n'))
}
