// `pnpm bench`: runs the codec table twice (without and with a Redis client loaded, each in a
// fresh process), the compression-policy sweep and the CRC cost, then writes RESULTS.md.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CodecPass, CodecRow } from './codec-bench.js'
import type { RedisPass } from './redis-bench.js'

const here = dirname(fileURLToPath(import.meta.url))

function runPass(withClient: boolean): CodecPass {
  process.stderr.write(`codec table, ${withClient ? 'with' : 'without'} ioredis loaded\n`)
  const args = ['--import', 'tsx', join(here, 'codec-bench.ts'), ...(withClient ? ['--with-redis-client'] : [])]
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 })
  if (child.status !== 0) throw new Error(`codec bench failed with status ${child.status}`)
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as CodecPass
}

function runScript(file: string): string {
  process.stderr.write(`${file}\n`)
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (child.status !== 0) throw new Error(`${file} failed with status ${child.status}`)
  return child.stdout
}

const fmt = (n: number, digits = 3) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n >= 1 || digits > 0 ? n.toFixed(digits) : n.toPrecision(2))
const mbps = (jsonBytes: number, ms: number) => fmt(jsonBytes / ms / 1000, 1)

function table(pass: CodecPass): string {
  const lines: string[] = []
  for (const row of pass.rows) {
    lines.push(`### ${row.workload} (JSON: ${row.jsonBytes.toLocaleString('en')} B)`, '')
    lines.push('| method | bytes | ×JSON | encode MB/s | decode MB/s | enc+dec time ×JSON |', '|---|---|---|---|---|---|')
    const json = row.cells.JSON!
    for (const [name, c] of Object.entries(row.cells)) {
      lines.push(
        `| ${name} | ${c.bytes.toLocaleString('en')} | ${fmt(c.bytes / row.jsonBytes, 4)} | ${mbps(row.jsonBytes, c.encodeMs)} | ${mbps(row.jsonBytes, c.decodeMs)} | ${fmt((c.encodeMs + c.decodeMs) / (json.encodeMs + json.decodeMs), 2)} |`,
      )
    }
    lines.push('')
  }
  return lines.join('\n')
}

function row(pass: CodecPass, workload: string): CodecRow {
  const found = pass.rows.find((r) => r.workload === workload)
  if (!found) throw new Error(`no row ${workload}`)
  return found
}

function targets(pass: CodecPass): string {
  const time = (r: CodecRow, m: string) => (r.cells[m]!.encodeMs + r.cells[m]!.decodeMs) / (r.cells.JSON!.encodeMs + r.cells.JSON!.decodeMs)
  const bytes = (r: CodecRow, m: string) => r.cells[m]!.bytes / r.jsonBytes
  const w1 = row(pass, 'W1-1000')
  const w2 = row(pass, 'W2')
  const w4 = row(pass, 'W4')
  const check = (ok: boolean) => (ok ? 'met' : '**missed**')
  const lines = [
    '| target | measured | |',
    '|---|---|---|',
    `| W1-1000 bytes ≤ 0.06× JSON | ${fmt(bytes(w1, 'Stowage (default)'), 4)}× | ${check(bytes(w1, 'Stowage (default)') <= 0.06)} |`,
    `| W1-1000 encode+decode ≤ 1.0× JSON.stringify+parse | ${fmt(time(w1, 'Stowage (default)'), 2)}× | ${check(time(w1, 'Stowage (default)') <= 1)} |`,
    `| W2 default bytes ≤ 0.35× JSON | ${fmt(bytes(w2, 'Stowage (default)'), 4)}× | ${check(bytes(w2, 'Stowage (default)') <= 0.35)} |`,
    `| W2 \`compress: 'never'\` time ≤ 1.5× JSON | ${fmt(time(w2, "Stowage, compress: 'never'"), 2)}× | ${check(time(w2, "Stowage, compress: 'never'") <= 1.5)} |`,
    `| W4 never larger than plain msgpack (@msgpack/msgpack) | ${w4.cells['Stowage (default)']!.bytes} B vs ${w4.cells['@msgpack/msgpack']!.bytes} B | ${check(w4.cells['Stowage (default)']!.bytes <= w4.cells['@msgpack/msgpack']!.bytes)} |`,
  ]
  return lines.join('\n')
}

function redisTables(pass: RedisPass): { targets: string; tables: string; seed: string } {
  const json = 'ioredis + JSON'
  const stowage = 'Stowage (@stowage/redis)'
  const names = Object.keys(pass.rows[0]!.cells)
  const ratio = (w: string, m: string, f: 'opsPerSec' | 'memory') => {
    const r = pass.rows.find((x) => x.workload === w)!
    return r.cells[m]![f] / r.cells[json]![f]
  }
  const check = (ok: boolean) => (ok ? 'met' : '**missed**')
  const targets = [
    '| target | measured | |',
    '|---|---|---|',
    `| W1-1000 ops/s ≥ 2.0× JSON | ${fmt(ratio('W1-1000', stowage, 'opsPerSec'), 2)}× | ${check(ratio('W1-1000', stowage, 'opsPerSec') >= 2)} |`,
    `| W1-1000 memory ≤ 0.06× JSON | ${fmt(ratio('W1-1000', stowage, 'memory'), 4)}× | ${check(ratio('W1-1000', stowage, 'memory') <= 0.06)} |`,
    `| W2 ops/s ≥ 0.6× JSON | ${fmt(ratio('W2', stowage, 'opsPerSec'), 2)}× | ${check(ratio('W2', stowage, 'opsPerSec') >= 0.6)} |`,
    `| W2 memory ≤ 0.35× JSON | ${fmt(ratio('W2', stowage, 'memory'), 4)}× | ${check(ratio('W2', stowage, 'memory') <= 0.35)} |`,
  ].join('\n')
  const tables = [
    `| workload | ${names.map((n) => `${n} ops/s ×JSON / memory ×JSON`).join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...pass.rows.map((r) => `| ${r.workload} | ${names.map((n) => `${fmt(ratio(r.workload, n, 'opsPerSec'), 2)} / ${fmt(ratio(r.workload, n, 'memory'), 4)}`).join(' | ')} |`),
  ].join('\n')
  const w1Rows = pass.rows.filter((r) => r.workload.startsWith('W1-'))
  const seed = [
    '| items | req/s JSON | req/s @msgpack/msgpack | req/s Stowage | memory JSON (B) | memory @msgpack/msgpack (B) | memory Stowage (B) |',
    '|---|---|---|---|---|---|---|',
    ...w1Rows.map((r) => {
      const c = r.cells
      const m = 'ioredis + @msgpack/msgpack'
      return `| ${r.workload.slice(3)} | ${fmt(c[json]!.opsPerSec, 0)} | ${fmt(c[m]!.opsPerSec, 0)} | ${fmt(c[stowage]!.opsPerSec, 0)} | ${c[json]!.memory.toLocaleString('en')} | ${c[m]!.memory.toLocaleString('en')} | ${c[stowage]!.memory.toLocaleString('en')} |`
    }),
  ].join('\n')
  return { targets, tables, seed }
}

function runRedis(): RedisPass {
  process.stderr.write('end to end through Redis\n')
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'redis-bench.ts')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 })
  if (child.status !== 0) throw new Error(`redis bench failed with status ${child.status}`)
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as RedisPass
}

const redisPass = runRedis()
const redis = redisTables(redisPass)
const bundles = runScript('bundle-bench.ts')
const indexeddb = runScript('idb-bench.ts')
const clean = runPass(false)
const loaded = runPass(true)
const policy = runScript('policy-sweep.ts')
const crc = runScript('crc-cost.ts')

const w2Clean = row(clean, 'W2').cells['@msgpack/msgpack']!
const w2Loaded = row(loaded, 'W2').cells['@msgpack/msgpack']!
const sClean = row(clean, 'W2').cells["Stowage, compress: 'never'"]!
const sLoaded = row(loaded, 'W2').cells["Stowage, compress: 'never'"]!

const results = `# Benchmark results

Written by \`pnpm bench\` (apps/bench/src/run.ts) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
${process.arch}. Every figure of a table comes from one process that ran all methods on the same
data; read ratios, not absolute numbers (these machines are shared and noisy). Timings are tinybench
medians after warm-up. MB/s = JSON bytes of the workload ÷ seconds, so methods compare.
Workloads: apps/bench/src/workloads.ts (seeded), described in shared/BENCHMARKS-ANCHORS.md;
\`W1-1000 shuffled\` is W1-1000 with its rows in random order, the case where Stowage's DELTA
columns cannot help (sorted ids and timestamps are its best case).

## Targets (issue 2), measured with ioredis imported in the process

${targets(loaded)}

W4: the envelope costs 8 bytes (magic, version, compression id, flags, CRC-32) and the payload is
the same size as plain MessagePack, so a ~120 B value is 8 bytes larger than bare msgpack. In Redis
both round to the same allocation class. Dropping the CRC would trade integrity for those bytes; we did not.

## End to end through Redis (issue 4)

value → encode → SET → GET → decode, one pair after another, ioredis 6 on loopback, every method
writing the same Redis key; ops/s is pairs per second (median of three rounds with the method order
rotated), memory is Redis's \`MEMORY USAGE\` of the key. Keyv + @keyv/redis is configured as its
README shows (\`createKeyv(url)\`, JSON serializer).

${redis.targets}

W2 memory: the envelope is 0.31× JSON's bytes, but 8.4 kB lands in Redis's (jemalloc's) 10 KiB
allocation class while JSON's 29 kB lands in 28 KiB. Deflate level 4 would bring it to 7.9 kB (the
8 KiB class, 0.29×) at about twice level 1's deflate time (scratch measurement: 153 vs 79 µs on W2,
523 vs 115 µs on W1-100000), which costs the W2 ops/s target; the default stays level 1.

${redis.tables}

### Bundles: one Redis hash per object (issue 4)

${bundles}

### The seed article's tables, with Stowage added

Requests per second (SET then GET of W1-N) and Redis memory of the key:

${redis.seed}

## IndexedDB in Chromium (issue 5)

${indexeddb}

## The Redis-client trap

ioredis 6 defines \`class VerbatimString extends String\`, which slows \`String.prototype.charCodeAt\`
in this V8. Stowage writes strings of 8+ characters with \`TextEncoder.encodeInto\`, which it does not touch.
W2 encode, \`compress: 'never'\`: Stowage ${mbps(row(clean, 'W2').jsonBytes, sClean.encodeMs)} MB/s without ioredis,
${mbps(row(loaded, 'W2').jsonBytes, sLoaded.encodeMs)} MB/s with it; @msgpack/msgpack ${mbps(row(clean, 'W2').jsonBytes, w2Clean.encodeMs)} → ${mbps(row(loaded, 'W2').jsonBytes, w2Loaded.encodeMs)} MB/s.

## Compression policy (how the defaults were chosen)

${policy}

## Cost of the CRC-32

${crc}

## Codec table, ioredis imported

${table(loaded)}

## Codec table, no Redis client loaded

${table(clean)}
`
writeFileSync(join(here, '..', 'RESULTS.md'), results)
// The raw figures behind RESULTS.md, for anyone who wants other ratios.
writeFileSync(join(here, '..', 'results.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, codec: { clean, loaded }, redis: redisPass }, null, 1)}\n`)
console.log(targets(loaded))
console.log('\nwrote apps/bench/RESULTS.md')
