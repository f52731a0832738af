// Where the article's server spends its time and what it allocates, per variant, at one N (issue 25
// item 3): the same server and load as article-bench.ts, with V8's CPU profiler and then its
// sampling heap profiler (garbage included) over one timed run each. Prints Markdown and
// `RESULT {json}`; the profiles stay in the folder it names on stderr (open them in Chrome DevTools).
//
//   pnpm --filter @stowage/bench run bench:article-profile [--n 10000] [--duration 5]
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { startRedisServer } from '@stowage/redis-server'
import { ARTICLE_VARIANTS, cannon, keyOf, prime, startServer, type Server } from './article-bench.js'

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame }>
  samples: number[]
  timeDeltas: number[]
}
interface HeapNode {
  callFrame: CallFrame
  selfSize: number
  children: HeapNode[]
}

/** Where a frame is: the function and its file (and line), with package folders kept short. */
function site(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)'
  if (!frame.url) return name
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(frame.url)?.[1]
  const where = frame.url.includes('/packages/') ? frame.url.slice(frame.url.indexOf('/packages/') + 10) : pkg ? `${pkg}/${basename(frame.url)}` : basename(frame.url)
  return `${name} ${where}:${frame.lineNumber + 1}`
}

/** Self time per site (ms) and the share of busy time in the garbage collector. */
function readCpu(file: string): { busyMs: number; gcShare: number; top: Array<[string, number]> } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]))
  const self = new Map<string, number>()
  let idle = 0
  let gc = 0
  let total = 0
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000
    const frame = frames.get(id)!
    total += ms
    if (frame.functionName === '(idle)') idle += ms
    else if (frame.functionName === '(garbage collector)') gc += ms
    const key = site(frame)
    self.set(key, (self.get(key) ?? 0) + ms)
  })
  const busy = total - idle
  const top = [...self].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, 10)
  return { busyMs: busy, gcShare: gc / busy, top }
}

/** Estimated bytes allocated per site over the run (V8 scales its samples to totals). */
function readHeap(file: string): { totalBytes: number; top: Array<[string, number]> } {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }
  const bySite = new Map<string, number>()
  let total = 0
  const visit = (node: HeapNode) => {
    if (node.selfSize > 0) {
      const key = site(node.callFrame)
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize)
      total += node.selfSize
    }
    for (const child of node.children) visit(child)
  }
  visit(head)
  return { totalBytes: total, top: [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 10) }
}

async function profiled(server: Server, kind: 'cpu' | 'heap', file: string, duration: number): Promise<number> {
  await fetch(`${server.url}/__${kind}/start`)
  const result = await cannon(server.url, { duration })
  await fetch(`${server.url}/__${kind}/stop?file=${encodeURIComponent(file)}`)
  return result.requests.total
}

const { values } = parseArgs({ options: { n: { type: 'string', default: '10000' }, duration: { type: 'string', default: '5' } } })
const n = Number(values.n)
const duration = Number(values.duration)
const dir = mkdtempSync(join(tmpdir(), 'article-profile-'))
let redisUrl = process.env.REDIS_URL
const own = redisUrl === undefined ? await startRedisServer() : undefined
redisUrl ??= own!.url
const redis = new Redis(redisUrl)
const results: Record<string, { requests: number; cpu: ReturnType<typeof readCpu>; heap: ReturnType<typeof readHeap>; heapRequests: number }> = {}
try {
  for (const variant of ARTICLE_VARIANTS) {
    await redis.del(keyOf(variant))
    const server = await startServer(variant, n, redisUrl)
    try {
      await prime(server, n)
      await cannon(server.url, { duration: 1 })
      const slug = variant.replace(/\W+/g, '-')
      const cpuFile = join(dir, `${slug}.cpuprofile`)
      const heapFile = join(dir, `${slug}.heapprofile`)
      const requests = await profiled(server, 'cpu', cpuFile, duration)
      const heapRequests = await profiled(server, 'heap', heapFile, duration)
      results[variant] = { requests, cpu: readCpu(cpuFile), heap: readHeap(heapFile), heapRequests }
      process.stderr.write(`${variant}: GC ${(results[variant].cpu.gcShare * 100).toFixed(1)}% of busy time, ${(results[variant].heap.totalBytes / heapRequests / 1024).toFixed(0)} KiB allocated per request\n`)
    } finally {
      await server.stop()
    }
    await redis.del(keyOf(variant))
  }
} finally {
  redis.disconnect()
  await own?.stop()
}

const kib = (bytes: number) => `${(bytes / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} KiB`
const lines = [
  `W1-${n.toLocaleString('en')}, ${duration} s of \`autocannon -m POST -c 10\` per profile.`,
  '',
  '| variant | requests in the CPU profile | GC share of busy main-thread time | allocated per request (sampled) |',
  '|---|---|---|---|',
  ...ARTICLE_VARIANTS.map((v) => {
    const r = results[v]!
    return `| ${v} | ${r.requests.toLocaleString('en')} | ${(r.cpu.gcShare * 100).toFixed(1)}% | ${kib(r.heap.totalBytes / r.heapRequests)} |`
  }),
  '',
]
for (const v of ARTICLE_VARIANTS) {
  const r = results[v]!
  lines.push(`**${v}**: top self time (ms over the run): ${r.cpu.top.map(([s, ms]) => `\`${s}\` ${ms.toFixed(0)}`).join(', ')}.`, '')
  lines.push(`Top allocation sites (per request): ${r.heap.top.map(([s, b]) => `\`${s}\` ${kib(b / r.heapRequests)}`).join(', ')}.`, '')
}
process.stderr.write(`profiles in ${dir}\n`)
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(results)}`)
