// The seed article's own benchmark (issue 25): its Fastify server (article-server.ts) in a process
// of its own per variant and N, driven by autocannon from this process (`-m POST`, 10 connections),
// against a redis-server started for the run (or REDIS_URL). The better of two runs per variant
// (the runs go round the variants);
// req/s, p99 latency, Redis's MEMORY USAGE of the key, and the share of the run the server's main
// thread spent in garbage collection. Prints Markdown, then `RESULT {json}`.
//
//   pnpm --filter @stowage/bench run bench:article [--n 1,10,100] [--duration 5] [--runs 2] [--million] [--from out.txt]
//
// --million adds N = 1,000,000: each response is ~80 MB of JSON, so a fixed count of requests
// (10, one per connection) with a 120 s client timeout replaces the timed runs, once per variant.
import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { startRedisServer } from '@stowage/redis-server'
import { w1 } from './workloads.js'

const here = dirname(fileURLToPath(import.meta.url))

/** The variants, in the order of the tables; article-server.ts has their handlers. */
export const ARTICLE_VARIANTS = ['JSON', 'msgpackr', 'Stowage codec', 'Stowage Cache, local tier off', 'Stowage Cache (README)', 'in-process value, no Redis (ceiling)'] as const
export type ArticleVariant = (typeof ARTICLE_VARIANTS)[number]
// Each variant writes a key of its own, all of one length (`bench<i>:article`, the Cache's
// namespace and key), so MEMORY USAGE compares the values alone.
const namespaceOf = (variant: string) => `bench${ARTICLE_VARIANTS.indexOf(variant as ArticleVariant)}`
export const keyOf = (variant: string) => `${namespaceOf(variant)}:article`

export interface ArticleCell {
  readonly reqPerSec: number
  readonly p99Ms: number
  readonly memory: number
  /** Main-thread GC pauses over the run's wall time. */
  readonly gcShare: number
  /** The server's CPU time (all threads) over the run's wall time. */
  readonly cpuShare: number
  /** Young-generation collections per 1,000 requests: a measure of what each request allocates. */
  readonly minorGcPer1000: number
  readonly errors: number
  readonly runs: readonly number[]
}
export interface ArticleRow {
  readonly n: number
  readonly cells: Record<string, ArticleCell>
}

interface Stats {
  gcMs: number
  gcCount: number
  minorGcCount: number
  cpuMs: number
  now: number
}

export interface Server {
  readonly url: string
  readonly child: ChildProcess
  stop(): Promise<void>
}

export async function startServer(variant: string, n: number, redisUrl: string, flags: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', join(here, 'article-server.ts')], {
    env: { ...process.env, ARTICLE_VARIANT: variant, ARTICLE_N: String(n), ARTICLE_NAMESPACE: namespaceOf(variant), ARTICLE_KEY: keyOf(variant), REDIS_URL: redisUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    const listening = (chunk: Buffer) => {
      out += chunk.toString()
      const m = /LISTENING (\d+)/.exec(out)
      if (m === null) return
      // Later output (a V8 trace flag's, say) is read and dropped, so the pipe never fills.
      child.stdout!.off('data', listening)
      child.stdout!.resume()
      resolve(Number(m[1]))
    }
    child.stdout!.on('data', listening)
    child.once('exit', (code) => reject(new Error(`article-server.ts (${variant}) exited with ${code}`)))
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

const stats = async (server: Server): Promise<Stats> => (await (await fetch(`${server.url}/__stats`)).json()) as Stats

export async function cannon(url: string, options: { duration?: number; amount?: number; timeout?: number }): Promise<autocannon.Result> {
  return autocannon({ url, method: 'POST', connections: 10, ...options })
}

/** One run: autocannon against the server, and what the server's GC did meanwhile. */
async function measure(server: Server, options: { duration?: number; amount?: number; timeout?: number }) {
  const before = await stats(server)
  const result = await cannon(server.url, options)
  const after = await stats(server)
  const wall = after.now - before.now
  const requests = result.requests.total
  return {
    reqPerSec: requests / result.duration,
    p99Ms: result.latency.p99,
    gcShare: (after.gcMs - before.gcMs) / wall,
    cpuShare: (after.cpuMs - before.cpuMs) / wall,
    minorGcPer1000: requests === 0 ? Number.NaN : ((after.minorGcCount - before.minorGcCount) / requests) * 1000,
    errors: result.errors + result.non2xx,
  }
}

/** The first request builds the value and stores it; its answer must be W1-N. */
export async function prime(server: Server, n: number): Promise<void> {
  const response = await fetch(server.url, { method: 'POST' })
  const body = await response.text()
  if (n > 100_000) return
  const expected = JSON.stringify(w1(n))
  if (body !== expected) throw new Error(`the server answered other than W1-${n}`)
  // A second request reads what the first stored: it must give the same.
  if ((await (await fetch(server.url, { method: 'POST' })).text()) !== expected) throw new Error(`W1-${n} read back from Redis differs`)
}

export async function articleBench(options: { ns: number[]; duration: number; runs: number; million: boolean; redisUrl: string }): Promise<ArticleRow[]> {
  const redis = new Redis(options.redisUrl)
  const keys = ARTICLE_VARIANTS.map(keyOf)
  const rows: ArticleRow[] = []
  const ns = options.million ? [...options.ns, 1_000_000] : options.ns
  try {
    for (const n of ns) {
      await redis.del(...keys)
      // One server per variant, all started first: the runs go round the variants, so that a burst
      // of load from elsewhere on this shared machine lands on one run of several, not on one variant.
      const servers = new Map<string, Server>()
      // Read right after each variant stored its value: a round of six variants can outlast the
      // Cache's 60 s TTL, and an expired key would read as 0 B.
      const memory = new Map<string, number>()
      try {
        for (const variant of ARTICLE_VARIANTS) {
          const server = await startServer(variant, n, options.redisUrl)
          servers.set(variant, server)
          await prime(server, n)
          memory.set(variant, Number(await redis.memory('USAGE', keyOf(variant), 'SAMPLES', '0')))
          if (n <= 100_000) await cannon(server.url, { duration: 1 }) // warm-up, not counted
        }
        const runs = new Map<string, Array<Awaited<ReturnType<typeof measure>>>>(ARTICLE_VARIANTS.map((v) => [v, []]))
        for (let i = 0; i < (n > 100_000 ? 1 : options.runs); i++) {
          for (const variant of ARTICLE_VARIANTS) {
            const server = servers.get(variant)!
            runs.get(variant)!.push(await measure(server, n > 100_000 ? { amount: 10, timeout: 120 } : { duration: options.duration }))
          }
        }
        const cells: Record<string, ArticleCell> = {}
        for (const variant of ARTICLE_VARIANTS) {
          const all = runs.get(variant)!
          const best = all.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a))
          cells[variant] = { ...best, memory: memory.get(variant)!, runs: all.map((r) => r.reqPerSec) }
          process.stderr.write(`W1-${n} ${variant}: ${best.reqPerSec.toFixed(1)} req/s (runs ${all.map((r) => r.reqPerSec.toFixed(1)).join(', ')}), p99 ${best.p99Ms} ms, ${memory.get(variant)} B, GC ${(best.gcShare * 100).toFixed(1)}%, CPU ${(best.cpuShare * 100).toFixed(0)}%\n`)
        }
        rows.push({ n, cells })
      } finally {
        await Promise.all([...servers.values()].map((s) => s.stop()))
      }
    }
  } finally {
    await redis.del(...keys)
    redis.disconnect()
  }
  return rows
}

const fmt = (v: number) => (Number.isNaN(v) ? '—' : v >= 100 ? Math.round(v).toLocaleString('en') : v >= 10 ? v.toFixed(1) : v.toFixed(2))
const ratio = (v: number, base: number) => `${v / base >= 0.1 ? (v / base).toFixed(2) : (v / base).toPrecision(2)}×`

/** Issue 25's targets, judged on one pass: [target, measured, met]. */
export function articleTargets(rows: ArticleRow[]): Array<[string, string, boolean]> {
  const upTo = rows.filter((r) => r.n <= 100_000)
  const x = (r: ArticleRow, v: string) => r.cells[v]!.reqPerSec / r.cells.msgpackr!.reqPerSec
  const off = 'Stowage Cache, local tier off'
  const readme = 'Stowage Cache (README)'
  const gmean = Math.exp(upTo.reduce((s, r) => s + Math.log(x(r, off)), 0) / upTo.length)
  const list = (v: string) => upTo.map((r) => `${r.n.toLocaleString('en')}: ${x(r, v).toFixed(2)}×`).join(', ')
  const memoryOver = rows.filter((r) => r.n >= 10).flatMap((r) => ARTICLE_VARIANTS.filter((v) => v.startsWith('Stowage') && r.cells[v]!.memory > r.cells.msgpackr!.memory).map((v) => `${v} at ${r.n}`))
  const one = rows.find((r) => r.n === 1)
  const tenK = rows.find((r) => r.n === 10_000)
  const gcGap = tenK === undefined ? Number.NaN : Math.max(...ARTICLE_VARIANTS.filter((v) => v.startsWith('Stowage')).map((v) => tenK.cells[v]!.gcShare - tenK.cells.msgpackr!.gcShare))
  return [
    [`the Cache, local tier off, ≥ 1.0× msgpackr's req/s (geometric mean over N = 1 … 100,000)`, `${gmean.toFixed(2)}×`, gmean >= 1],
    [`the Cache, local tier off, ≥ 0.9× msgpackr's req/s at every N`, list(off), upTo.every((r) => x(r, off) >= 0.9)],
    [
      `the Cache as its README configures it ≥ 1.3× msgpackr's req/s at every N`,
      `${list(readme)} (with no cache at all, the ceiling: ${list('in-process value, no Redis (ceiling)')})`,
      upTo.every((r) => x(r, readme) >= 1.3),
    ],
    [`Redis memory ≤ msgpackr's at every N ≥ 10`, memoryOver.length === 0 ? 'every Stowage variant' : `over: ${memoryOver.join(', ')}`, memoryOver.length === 0],
    [`Redis memory < JSON's at N = 1`, one === undefined ? '—' : `${one.cells['Stowage codec']!.memory} B against ${one.cells.JSON!.memory} B`, one !== undefined && one.cells['Stowage codec']!.memory < one.cells.JSON!.memory],
    [
      `GC share of the Stowage variants within 5 points of msgpackr's (N = 10,000)`,
      tenK === undefined ? '—' : ARTICLE_VARIANTS.map((v) => `${v} ${(tenK.cells[v]!.gcShare * 100).toFixed(1)}%`).join(', '),
      gcGap <= 0.05,
    ],
  ]
}

/** The tables of a pass, as Markdown. */
export function articleTables(rows: ArticleRow[]): string {
  const head = (what: string) => [`| N | ${ARTICLE_VARIANTS.map((v) => `${v} ${what}`).join(' | ')} |`, `|---|${ARTICLE_VARIANTS.map(() => '---').join('|')}|`]
  const table = (what: string, cell: (c: ArticleCell, base: ArticleCell) => string) => [
    ...head(what),
    ...rows.map((r) => `| ${r.n.toLocaleString('en')} | ${ARTICLE_VARIANTS.map((v) => cell(r.cells[v]!, r.cells.msgpackr!)).join(' | ')} |`),
  ]
  const gmean = (variant: string, upTo: number) => {
    const ratios = rows.filter((r) => r.n <= upTo).map((r) => r.cells[variant]!.reqPerSec / r.cells.msgpackr!.reqPerSec)
    return Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length)
  }
  const errors = rows.flatMap((r) => ARTICLE_VARIANTS.filter((v) => r.cells[v]!.errors > 0).map((v) => `W1-${r.n} ${v}: ${r.cells[v]!.errors}`))
  return [
    '| target (issue 25) | measured | |',
    '|---|---|---|',
    ...articleTargets(rows).map(([name, measured, met]) => `| ${name} | ${measured} | ${met ? 'met' : '**missed**'} |`),
    '',
    'Requests per second (× msgpackr in the same run):',
    '',
    ...table('req/s', (c, b) => `${fmt(c.reqPerSec)} (${ratio(c.reqPerSec, b.reqPerSec)})`),
    '',
    `Geometric mean over N = 1 … 100,000, × msgpackr: ${ARTICLE_VARIANTS.filter((v) => v !== 'msgpackr')
      .map((v) => `${v} ${gmean(v, 100_000).toFixed(2)}×`)
      .join(', ')}.`,
    '',
    'p99 latency (ms):',
    '',
    ...table('p99', (c) => (c.p99Ms === 0 ? '< 1' : fmt(c.p99Ms))),
    '',
    'Redis `MEMORY USAGE` of the key (bytes, × msgpackr):',
    '',
    ...table('memory', (c, b) => `${c.memory.toLocaleString('en')} (${ratio(c.memory, b.memory)})`),
    '',
    "The server's main thread in garbage collection, share of the run's wall time (young-generation GCs per 1,000 requests):",
    '',
    ...table('GC', (c) => `${(c.gcShare * 100).toFixed(1)}% (${fmt(c.minorGcPer1000)})`),
    '',
    errors.length === 0 ? 'No errors, timeouts or non-2xx answers.' : `Errors, timeouts or non-2xx answers: ${errors.join('; ')}.`,
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '1,10,100,1000,10000,100000' },
      duration: { type: 'string', default: '5' },
      runs: { type: 'string', default: '2' },
      million: { type: 'boolean', default: false },
      // Renders the tables of an earlier run's output (its RESULT line) instead of running.
      from: { type: 'string' },
    },
  })
  if (values.from !== undefined) {
    const line = readFileSync(values.from, 'utf8').split('\n').find((l) => l.startsWith('RESULT '))!
    console.log(articleTables(JSON.parse(line.slice(7)) as ArticleRow[]))
    process.exit(0)
  }
  let redisUrl = process.env.REDIS_URL
  const own = redisUrl === undefined ? await startRedisServer() : undefined
  redisUrl ??= own!.url
  try {
    const rows = await articleBench({ ns: values.n.split(',').map(Number), duration: Number(values.duration), runs: Number(values.runs), million: values.million, redisUrl })
    console.log(articleTables(rows))
    console.log(`RESULT ${JSON.stringify(rows)}`)
  } finally {
    await own?.stop()
  }
}
