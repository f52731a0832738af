// `pnpm test:runtimes`: @stowage/core's runtime-neutral test files and @stowage/redis's store tests
// under vitest on Node 20 (the Node running this), 22 and 24, Bun and Deno, then core's test files
// inside workerd; prints a table and exits non-zero on any failure. Runs are one at a time: the
// machines have two cores.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { binary } from './binaries.js'
import { runWorkerd } from './workerd.js'

const tool = join(dirname(fileURLToPath(import.meta.url)), '..')
const vitest = join(dirname(createRequire(join(tool, 'package.json')).resolve('vitest/package.json')), 'vitest.mjs')

interface Runtime {
  /** As runtime-check.ts and the table name it. */
  readonly name: string
  /** The command that runs a JavaScript file, without the file. */
  readonly command: readonly string[]
  /** Whether the Redis store tests run: every runtime here has TCP (workerd's is not Node's net). */
  readonly redis: boolean
}

const runtimes = (): Runtime[] => [
  { name: `node ${process.versions.node.split('.')[0]}`, command: [process.execPath], redis: true },
  { name: 'node 22', command: [binary('node22')], redis: true },
  { name: 'node 24', command: [binary('node24')], redis: true },
  // --bun: run vitest's CLI in Bun itself, not in the Node its #!/usr/bin/env node line names.
  { name: 'bun', command: [binary('bun'), '--bun'], redis: true },
  // Deno reads the workspace's node_modules as pnpm laid it out, and does not install anything.
  { name: 'deno', command: [binary('deno'), 'run', '-A', '--node-modules-dir=manual'], redis: true },
]

/** A test the matrix expects to fail on one runtime, with the exact error: if it passes or fails otherwise, the run fails. */
interface KnownGap {
  readonly runtime: string
  readonly test: string
  readonly error: string
}

// workerd has no BroadcastChannel (Cloudflare's cross-isolate messaging is Durable Objects and
// Queues), so createBroadcastInvalidation() cannot work in a Worker.
const knownGaps: KnownGap[] = [
  { runtime: 'workerd', test: 'cache-tags.test.ts > Cache: tags > local copies: dropped at once in this process and, through the channel, in the others', error: 'StowageError: this runtime has no BroadcastChannel: give the cache another InvalidationChannel (createRedisInvalidation, or your own)' },
  { runtime: 'workerd', test: 'cache.test.ts > Cache: local tier and invalidation > with a channel, a set, delete or clear in one cache drops the others’ local copies', error: 'StowageError: this runtime has no BroadcastChannel: give the cache another InvalidationChannel (createRedisInvalidation, or your own)' },
]

interface Row {
  runtime: string
  version: string
  suite: string
  files: string
  passed: number
  failed: number
  skipped: number
  gaps: number
  seconds: number
}

function capture(command: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const [bin, ...args] = command as [string, ...string[]]
    const child = spawn(bin, args, { cwd: join(tool, '..', '..'), env: { ...process.env, ...env, FORCE_COLOR: '0' } })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

async function version(runtime: Runtime): Promise<string> {
  const { output } = await capture([runtime.command[0] as string, '--version'])
  return (/\d+\.\d+\.\d+/.exec(output)?.[0] ?? output.trim()).replace(/^v/, '')
}

interface VitestJson {
  numTotalTestSuites: number
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTodoTests: number
  testResults: Array<{ name: string; status: string }>
}

async function runVitest(runtime: Runtime, suite: 'core' | 'redis', runtimeVersion: string): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'stowage-matrix-'))
  const out = join(dir, 'results.json')
  const start = Date.now()
  const config = join(tool, 'matrix', `${suite}.config.ts`)
  const { code, output } = await capture([...runtime.command, vitest, 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`], { STOWAGE_RUNTIME: runtime.name })
  const seconds = (Date.now() - start) / 1000
  let json: VitestJson | undefined
  try {
    json = JSON.parse(readFileSync(out, 'utf8')) as VitestJson
  } catch {
    json = undefined
  }
  rmSync(dir, { recursive: true, force: true })
  // A file that fails to load has no failed test: count it, and a vitest that failed with no count.
  const failed = json === undefined ? 1 : json.numFailedTests || json.testResults.filter((f) => f.status === 'failed').length
  if (code !== 0 || failed > 0) console.log(`\n${runtime.name} ${suite}: vitest exited ${code}\n${output.split('\n').slice(-80).join('\n')}`)
  const row: Row = {
    runtime: runtime.name,
    version: runtimeVersion,
    suite: suite === 'core' ? 'core (vitest)' : 'redis store (vitest)',
    files: json === undefined ? '—' : String(json.testResults.length),
    passed: json?.numPassedTests ?? 0,
    failed: code !== 0 && failed === 0 ? 1 : failed,
    skipped: (json?.numPendingTests ?? 0) + (json?.numTodoTests ?? 0),
    gaps: 0,
    seconds,
  }
  console.log(`${row.runtime} ${row.suite}: ${row.passed} passed, ${row.failed} failed in ${seconds.toFixed(1)} s`)
  return row
}

async function runWorkerdRow(): Promise<Row> {
  const start = Date.now()
  const run = await runWorkerd()
  const row: Row = { runtime: 'workerd', version: run.version, suite: 'core (harness)', files: String(new Set(run.results.map((r) => r.name.split(' > ')[0])).size), passed: 0, failed: 0, skipped: 0, gaps: 0, seconds: 0 }
  for (const result of run.results) {
    const gap = knownGaps.find((g) => g.runtime === 'workerd' && g.test === result.name)
    if (gap !== undefined) {
      if (result.status === 'failed' && result.error === gap.error) row.gaps++
      else {
        row.failed++
        console.log(`workerd: ${result.name}: expected to fail with "${gap.error}", got ${result.status} ${result.error ?? ''}`)
      }
    } else if (result.status === 'passed') row.passed++
    else if (result.status === 'skipped') {
      row.skipped++
      console.log(`workerd: skipped ${result.name}: ${result.error}`)
    } else {
      row.failed++
      console.log(`workerd: FAILED ${result.name}: ${result.error}`)
    }
  }
  for (const gap of knownGaps) if (!run.results.some((r) => r.name === gap.test)) console.log(`workerd: known gap no longer exists, remove it: ${gap.test}`)
  row.seconds = (Date.now() - start) / 1000
  console.log(`workerd core (harness): ${row.passed} passed, ${row.failed} failed, ${row.gaps} known gaps in ${row.seconds.toFixed(1)} s (${run.userAgent})`)
  return row
}

function table(rows: Row[]): string {
  const head = ['runtime', 'version', 'what ran', 'files', 'passed', 'failed', 'skipped', 'known gaps', 'seconds']
  const body = rows.map((r) => [r.runtime, r.version, r.suite, r.files, String(r.passed), String(r.failed), String(r.skipped), String(r.gaps), r.seconds.toFixed(1)])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n')
}

const only = process.argv.slice(2)
const rows: Row[] = []
const started = Date.now()
for (const runtime of runtimes()) {
  if (only.length > 0 && !only.some((o) => runtime.name.startsWith(o))) continue
  const v = await version(runtime)
  rows.push(await runVitest(runtime, 'core', v))
  if (runtime.redis) rows.push(await runVitest(runtime, 'redis', v))
}
if (only.length === 0 || only.includes('workerd')) {
  try {
    rows.push(await runWorkerdRow())
  } catch (e) {
    console.log(`workerd: ${e instanceof Error ? e.message : String(e)}`)
    rows.push({ runtime: 'workerd', version: '?', suite: 'core (harness)', files: '—', passed: 0, failed: 1, skipped: 0, gaps: 0, seconds: 0 })
  }
}
const sum = (k: 'passed' | 'failed' | 'skipped' | 'gaps') => rows.reduce((n, r) => n + r[k], 0)
console.log(`\n${table(rows)}\n\nruntime matrix in ${((Date.now() - started) / 1000).toFixed(0)} s`)
console.log(`${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`)
process.exitCode = sum('failed') > 0 ? 1 : 0
