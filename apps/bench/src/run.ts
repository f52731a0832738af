// `pnpm bench`: every section in a fresh process of its own (the codec table twice, without and
// with a Redis client loaded), then RESULTS.md and results.json. Sections print Markdown; the ones
// that feed targets end with a line `RESULT {json}` (or print one JSON line: the codec and Redis passes).
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { articleTargets, type ArticleRow } from './article-bench.js'
import type { CodecPass, CodecRow } from './codec-bench.js'
import { JSON_GZIP, PEERS, STOWAGE, STOWAGE_NEVER } from './peers.js'
import type { RedisPass } from './redis-bench.js'

const here = dirname(fileURLToPath(import.meta.url))

function run(file: string, args: string[] = [], flags: string[] = []): string {
  process.stderr.write(`${file} ${args.join(' ')}\n`)
  const child = spawnSync(process.execPath, [...flags, '--import', 'tsx', join(here, file), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 << 20,
  })
  if (child.status !== 0) throw new Error(`${file} failed with status ${child.status}`)
  return child.stdout
}
const lastLine = (out: string) => out.trim().split('\n').pop() as string
const markdown = (out: string) => out.split('\n').filter((l) => !l.startsWith('RESULT ')).join('\n').trim()
const result = <T>(out: string): T => JSON.parse((out.split('\n').find((l) => l.startsWith('RESULT ')) as string).slice(7)) as T

const fmt = (n: number, digits = 3) => (Number.isNaN(n) ? '—' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(digits))
const check = (ok: boolean) => (ok ? 'met' : '**missed**')
const row = (pass: CodecPass, workload: string): CodecRow => {
  const found = pass.rows.find((r) => r.workload === workload)
  if (!found) throw new Error(`no row ${workload}`)
  return found
}
const time = (r: CodecRow, m: string) => r.cells[m]!.encodeMs + r.cells[m]!.decodeMs
const bytes = (r: CodecRow, m: string) => r.cells[m]!.bytes

function table(pass: CodecPass): string {
  const lines: string[] = []
  for (const r of pass.rows) {
    const json = r.cells.JSON!
    const label = r.synthetic ? `${r.workload} (synthetic)` : `${r.workload} (real data)`
    lines.push(`### ${label}: ${r.values > 1 ? `${r.values} values, ` : ''}${r.jsonBytes.toLocaleString('en')} B of JSON`, '')
    lines.push('| method | bytes | bytes ×JSON | encode ×JSON.stringify | decode ×JSON.parse | encode+decode ×JSON | encode ms | decode ms |', '|---|---|---|---|---|---|---|---|')
    for (const [name, c] of Object.entries(r.cells)) {
      lines.push(
        `| ${name} | ${c.bytes.toLocaleString('en')} | ${fmt(c.bytes / r.jsonBytes, 4)} | ${fmt(c.encodeMs / json.encodeMs, 2)} | ${fmt(c.decodeMs / json.decodeMs, 2)} | ${fmt((c.encodeMs + c.decodeMs) / (json.encodeMs + json.decodeMs), 2)} | ${fmt(c.encodeMs)} | ${fmt(c.decodeMs)} |`,
      )
    }
    lines.push('')
  }
  return lines.join('\n')
}

/** Issue 9's codec targets, judged on the pass with ioredis loaded. */
function codecTargets(pass: CodecPass, dict: DictionaryResult): { table: string; met: boolean[] } {
  const lines = ['| target | measured | |', '|---|---|---|']
  const met: boolean[] = []
  const add = (name: string, measured: string, ok: boolean) => {
    lines.push(`| ${name} | ${measured} | ${check(ok)} |`)
    met.push(ok)
  }
  const real = pass.rows.filter((r) => !r.synthetic)
  for (const r of [...real, ...['W1-1000', 'W1-1000 shuffled', 'W2', 'W4'].map((w) => row(pass, w))]) {
    const dominating = PEERS.filter((p) => bytes(r, p) < bytes(r, STOWAGE) && time(r, p) < time(r, STOWAGE))
    add(
      `no peer both smaller and faster than the default: ${r.workload}`,
      dominating.length === 0
        ? `none (Stowage ${fmt(bytes(r, STOWAGE) / r.jsonBytes, 4)}× JSON bytes, ${fmt(time(r, STOWAGE) / time(r, 'JSON'), 2)}× JSON time)`
        : dominating.map((p) => `${p}: ${fmt(bytes(r, p) / r.jsonBytes, 4)}× bytes, ${fmt(time(r, p) / time(r, 'JSON'), 2)}× time vs Stowage ${fmt(bytes(r, STOWAGE) / r.jsonBytes, 4)}×, ${fmt(time(r, STOWAGE) / time(r, 'JSON'), 2)}×`).join('; '),
      dominating.length === 0,
    )
  }
  for (const r of real) {
    add(`default bytes ≤ JSON + gzip 6: ${r.workload}`, `${fmt(bytes(r, STOWAGE) / r.jsonBytes, 4)}× vs ${fmt(bytes(r, JSON_GZIP) / r.jsonBytes, 4)}× JSON`, bytes(r, STOWAGE) <= bytes(r, JSON_GZIP))
  }
  const hooks = real[0]!
  const decode = hooks.cells[STOWAGE_NEVER]!.decodeMs / hooks.cells.JSON!.decodeMs
  const encode = hooks.cells[STOWAGE_NEVER]!.encodeMs / hooks.cells.JSON!.encodeMs
  add(`decode, \`compress: 'never'\`, webhook payloads ≤ 1.2× JSON.parse`, `${fmt(decode, 2)}× (msgpackr records ${fmt(hooks.cells['msgpackr records']!.decodeMs / hooks.cells.JSON!.decodeMs, 2)}×)`, decode <= 1.2)
  add(`encode, \`compress: 'never'\`, webhook payloads ≤ 2.0× JSON.stringify`, `${fmt(encode, 2)}× (msgpackr records ${fmt(hooks.cells['msgpackr records']!.encodeMs / hooks.cells.JSON!.encodeMs, 2)}×)`, encode <= 2)
  const w4 = dict.w4['1024'] as number
  add('W4 with a trained dictionary ≤ 0.6× plain MessagePack bytes', `${fmt(w4)}× (1 KiB dictionary trained on 500 other tokens)`, w4 <= 0.6)
  const hook = dict.webhooks['16384'] as { median: number; worst: number }
  add('a webhook payload with a dictionary trained on others ≤ 0.8× its bytes without', `median ${fmt(hook.median)}×, worst of 110 held-out payloads ${fmt(hook.worst)}× (16 KiB dictionary)`, hook.worst <= 0.8)
  return { table: lines.join('\n'), met }
}

/** Issue 2's targets, kept as regression checks. */
function issue2Targets(pass: CodecPass): string {
  const w1 = row(pass, 'W1-1000')
  const w2 = row(pass, 'W2')
  const json = (r: CodecRow) => time(r, 'JSON')
  return [
    '| target | measured | |',
    '|---|---|---|',
    `| W1-1000 bytes ≤ 0.06× JSON | ${fmt(bytes(w1, STOWAGE) / w1.jsonBytes, 4)}× | ${check(bytes(w1, STOWAGE) / w1.jsonBytes <= 0.06)} |`,
    `| W1-1000 encode+decode ≤ 1.0× JSON | ${fmt(time(w1, STOWAGE) / json(w1), 2)}× | ${check(time(w1, STOWAGE) / json(w1) <= 1)} |`,
    `| W2 default bytes ≤ 0.35× JSON | ${fmt(bytes(w2, STOWAGE) / w2.jsonBytes, 4)}× | ${check(bytes(w2, STOWAGE) / w2.jsonBytes <= 0.35)} |`,
    `| W2 \`compress: 'never'\` time ≤ 1.5× JSON | ${fmt(time(w2, STOWAGE_NEVER) / json(w2), 2)}× | ${check(time(w2, STOWAGE_NEVER) / json(w2) <= 1.5)} |`,
  ].join('\n')
}

function redisTables(pass: RedisPass): { targets: string; tables: string; seed: string } {
  const json = 'ioredis + JSON'
  const stowage = 'Stowage (@stowage/redis)'
  const names = Object.keys(pass.rows[0]!.cells)
  const ratio = (w: string, m: string, f: 'opsPerSec' | 'memory') => {
    const r = pass.rows.find((x) => x.workload === w)!
    return r.cells[m]![f] / r.cells[json]![f]
  }
  const targets = [
    '| target | measured | |',
    '|---|---|---|',
    `| W1-1000 ops/s ≥ 2.0× JSON | ${fmt(ratio('W1-1000', stowage, 'opsPerSec'), 2)}× | ${check(ratio('W1-1000', stowage, 'opsPerSec') >= 2)} |`,
    `| W1-1000 memory ≤ 0.06× JSON | ${fmt(ratio('W1-1000', stowage, 'memory'), 4)}× | ${check(ratio('W1-1000', stowage, 'memory') <= 0.06)} |`,
    `| W2 ops/s ≥ 0.6× JSON | ${fmt(ratio('W2', stowage, 'opsPerSec'), 2)}× | ${check(ratio('W2', stowage, 'opsPerSec') >= 0.6)} |`,
    `| W2 memory ≤ 0.35× JSON | ${fmt(ratio('W2', stowage, 'memory'), 4)}× | ${check(ratio('W2', stowage, 'memory') <= 0.35)} |`,
  ].join('\n')
  const tables = [
    `| workload | ${names.map((n) => `${n} ops/s / memory ×JSON`).join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...pass.rows.map((r) => `| ${r.workload} | ${names.map((n) => `${fmt(ratio(r.workload, n, 'opsPerSec'), 2)} / ${fmt(ratio(r.workload, n, 'memory'), 4)}`).join(' | ')} |`),
  ].join('\n')
  const seed = [
    '| items | req/s JSON | req/s @msgpack/msgpack | req/s Stowage | memory JSON (B) | memory @msgpack/msgpack (B) | memory Stowage (B) |',
    '|---|---|---|---|---|---|---|',
    ...pass.rows
      .filter((r) => r.workload.startsWith('W1-'))
      .map((r) => {
        const c = r.cells
        const m = 'ioredis + @msgpack/msgpack'
        return `| ${r.workload.slice(3)} | ${fmt(c[json]!.opsPerSec, 0)} | ${fmt(c[m]!.opsPerSec, 0)} | ${fmt(c[stowage]!.opsPerSec, 0)} | ${c[json]!.memory.toLocaleString('en')} | ${c[m]!.memory.toLocaleString('en')} | ${c[stowage]!.memory.toLocaleString('en')} |`
      }),
  ].join('\n')
  return { targets, tables, seed }
}

interface DictionaryResult {
  w4: Record<string, number>
  webhooks: Record<string, { median: number; worst: number }>
}
type Hostile = Array<{ name: string; met: boolean }>
type Browser = Array<[string, number, boolean]>
// Per engine and corpus: method → [decode ×JSON.parse, encode ×JSON.stringify, bytes ×JSON].
type BrowserCodec = Array<[string, string, Record<string, [number, number | null, number]>]>

/** Issue 18's browser targets: decode in Chromium and Firefox, reads after a reload, the persisted client. */
/** Format 4 against 3 and 2 in the browsers, from the codec table's rows (issue 18). */
function codecV4Table(codec: BrowserCodec): string {
  const lines = ['| engine | data | decode ×JSON.parse: format 4 (default) / 3 / 2 | encode ×JSON.stringify: 4 / 3 / 2 |', '|---|---|---|---|']
  for (const [engine, corpus, methods] of codec) {
    const row = (i: 0 | 1) => ["Stowage `compress: 'never'`", "Stowage `compress: 'never'`, format 3 at most", "Stowage `compress: 'never'`, format 2"].map((m) => fmt(methods[m]![i] as number, 2)).join(' / ')
    lines.push(`| ${engine} | ${corpus} | ${row(0)} | ${row(1)} |`)
  }
  return lines.join('\n')
}

function issue18Targets(codec: BrowserCodec, reloadRows: Browser, persistRows: Browser): { table: string; missed: string[] } {
  const rows: Browser = []
  for (const [engine, corpus, methods] of codec) {
    if (engine === 'WebKit') continue // measured where the engine allows timing; the issue sets no WebKit target
    const never = methods["Stowage `compress: 'never'`"]![0]
    const webhooks = corpus.startsWith('GitHub webhooks')
    const bound = engine === 'Firefox' ? 1.2 : webhooks ? 1.0 : 1.2
    rows.push([`${engine}: decode ${corpus} ≤ ${bound.toFixed(1)}× JSON.parse (format 4, as kept in the browser)`, never, never <= bound])
  }
  rows.push(...reloadRows, ...persistRows)
  const missed = rows.filter(([, , ok]) => !ok).map(([name]) => name)
  const shown = (name: string, value: number) => (name.includes('≤ 50 ms') ? `${fmt(value)} ms` : `${fmt(value, 2)}×`)
  return { table: ['| target | measured | |', '|---|---|---|', ...rows.map(([name, value, ok]) => `| ${name} | ${shown(name, value)} | ${check(ok)} |`)].join('\n'), missed }
}

const redisPass = JSON.parse(lastLine(run('redis-bench.ts'))) as RedisPass
const redis = redisTables(redisPass)
const article = run('article-bench.ts', ['--million'])
const articleProfile = run('article-profile.ts')
const decodeGc = run('decode-gc.ts')
const bundles = run('bundle-bench.ts')
const caches = run('cache-bench.ts')
const adapters = run('adapter-bytes-bench.ts')
const nextTags = run('next-tags-bench.ts')
const nextPages = run('next-pages-bench.ts')
const memoryStore = run('memory-store-bench.ts')
const idb = run('idb-bench.ts')
const streams = run('inflate-bench.ts')
const clean = JSON.parse(lastLine(run('codec-bench.ts'))) as CodecPass
const loaded = JSON.parse(lastLine(run('codec-bench.ts', ['--with-redis-client']))) as CodecPass
const dictionary = run('dictionary-bench.ts')
const autoDictionary = run('auto-dictionary-bench.ts')
const dictionaryRedis = run('dictionary-redis-bench.ts')
const hostile = run('hostile-bench.ts')
const serverCost = run('server-cost-bench.ts', [], ['--expose-gc'])
const cacheMicro = run('cache-micro-bench.ts')
const cacheGetMany = run('cache-getmany-bench.ts')
const policy = run('policy-sweep.ts')
const micro = run('micro.ts')
const crc = run('crc-cost.ts')
const persistState = run('persist-bench.ts')
const persistFirefox = run('persist-bench.ts', ['--mode', 'firefox'])
const browserCodec = run('browser-codec-bench.ts')
const browserText = run('browser-text-bench.ts')
const browserFreeze = run('browser-freeze-bench.ts')
const reload = run('reload-bench.ts')
const queryPersister = run('query-persister-bench.ts')
const queryPersisterFirefox = run('query-persister-bench.ts', ['--browser', 'firefox'])
const fetches = run('fetch-bench.ts')
const fetchesFirefox = run('fetch-bench.ts', ['--browser', 'firefox'])
const crcCold = run('crc-cold-bench.ts')
const fetchProfile = run('fetch-profile.ts')
const persistProfile = run('persist-profile.ts')

const targets = codecTargets(loaded, result<DictionaryResult>(dictionary))
// idb-bench.ts's RESULT holds issue 9's rows and issue 18's for the webhooks ("Chromium, webhooks: …").
const issue18Idb = (row: Browser[number]) => row[0].startsWith('Chromium, webhooks:')
const browserTargets = issue18Targets(result<BrowserCodec>(browserCodec), [...result<Browser>(idb).filter(issue18Idb), ...result<Browser>(reload), ...result<Browser>(fetches), ...result<Browser>(fetchesFirefox)], [...result<Browser>(persistState), ...result<Browser>(persistFirefox), ...result<Browser>(queryPersister), ...result<Browser>(queryPersisterFirefox)])
const browser = result<Browser>(idb).filter((row) => !issue18Idb(row))
const dictionary19 = issue19Targets(result<DictionaryRedis>(dictionaryRedis))
const hostileRows = result<Hostile>(hostile)
const missed = [
  ...targets.table.split('\n').filter((l) => l.includes('**missed**')),
  ...browser.filter(([, , ok]) => !ok).map(([name]) => name),
  ...hostileRows.filter((h) => !h.met).map((h) => h.name),
  ...browserTargets.missed,
  ...dictionary19.missed,
  ...result<Browser>(serverCost).filter(([, , ok]) => !ok).map(([name]) => name),
  ...result<Browser>(cacheMicro).filter(([, , ok]) => !ok).map(([name]) => name),
  ...articleTargets(result<ArticleRow[]>(article)).filter(([, , ok]) => !ok).map(([name]) => name),
  ...result<Browser>(nextTags).filter(([, , ok]) => !ok).map(([name]) => name),
  ...result<Browser>(nextPages).filter(([, , ok]) => !ok).map(([name]) => name),
]

interface DictionaryRedis {
  readonly [kind: string]: unknown
  readonly setGet: number
  readonly encode: number
  readonly trainMs: number
  readonly rotation: { writes: number; reads: number; misses: number; missesByDictionary: number; wrong: number; errors: number; dictionaries: number }
  readonly scanEstimate: { estimated: number; achieved: number }
}

/** Issue 19's targets, from dictionary-redis-bench.ts. */
function issue19Targets(r: DictionaryRedis): { table: string; missed: string[] } {
  const rows: Array<[string, string, boolean]> = []
  for (const kind of ['emojibase rows', 'GitHub users (webhook senders and owners)']) {
    const k = r[kind] as { memoryRatio: number; valueRatio: number }
    rows.push([`${kind} (0.3–2 kB of JSON): Redis memory per key ≤ 0.35× a JSON string`, `${fmt(k.memoryRatio, 3)}×`, k.memoryRatio <= 0.35])
    rows.push([`${kind}: value bytes ≤ 0.25× JSON`, `${fmt(k.valueRatio, 3)}×`, k.valueRatio <= 0.25])
  }
  rows.push(['set + get through Redis with a dictionary ≥ 0.9× without', `${fmt(r.setGet, 2)}×`, r.setGet >= 0.9])
  rows.push(['encode of a 1 kB value with a dictionary ≤ 3× without', `${fmt(r.encode, 2)}×`, r.encode <= 3])
  const rot = r.rotation
  rows.push(['rotation under load: 0 misses for a dictionary, 0 wrong values', `${rot.missesByDictionary} misses for a dictionary, ${rot.wrong} wrong of ${rot.reads} reads`, rot.missesByDictionary === 0 && rot.wrong === 0])
  rows.push(['rotation under load: at most one dictionary trained per rotation (2 rotations)', `${rot.dictionaries} stored`, rot.dictionaries <= 2])
  rows.push(['training on 1,000 samples < 1 s', `${fmt(r.trainMs, 0)} ms`, r.trainMs < 1000])
  const off = Math.abs(r.scanEstimate.estimated / r.scanEstimate.achieved - 1)
  rows.push(['scan estimate with a dictionary within 10% of what convert achieves', `${fmt(r.scanEstimate.estimated, 3)}× vs ${fmt(r.scanEstimate.achieved, 3)}× JSON`, off <= 0.1])
  return {
    table: ['| target | measured | |', '|---|---|---|', ...rows.map(([n, m, ok]) => `| ${n} | ${m} | ${check(ok)} |`)].join('\n'),
    missed: rows.filter(([, , ok]) => !ok).map(([n]) => n),
  }
}

// The causes of the misses, measured once (apps/bench/RESULTS.md cites the figures of each run).
// Format 4 against format 3, measured once (2026-11-27); the table after it comes from each run.
const CODEC_V4 = `Format 4 (Stowage 0.4) keeps the strings of a value that are not ASCII in a table of their own
behind the ASCII table (FORMAT.md §2.1). In V8 and SpiderMonkey one character past U+00FF makes a
decoded table a two-byte string: with one emoji in a format-3 table every string of the value took
two bytes a character, and Chromium's \`TextDecoder\` turned the table into a string at ~0.65 GB/s
instead of ~3 GB/s (500 kB of ASCII with and without one emoji in front, one page of Chromium 156).
The persister's segments of small queries show it: one query in 90 holds an emoji, so every
segment's table was two-byte. As format 4 they decode in 0.63–0.65× \`JSON.parse\` in Chromium
against 0.84–0.88× as format 3 (three runs of the table below on 2026-11-27), and in a new page,
cold, the 38 segments decoded in 84–110 ms against 111–125 ms (four pages each); after real
reloads the persister restored them in 192 ms against 252 ms (medians of 5, the two builds
alternating). Writing them costs 1.12–1.14× format 3's time in the browsers: the text strings are
found by one regular expression over the joined strings and cut out of the table's UTF-8, not
written again. Firefox decodes them no faster (1.30× against 1.26× \`JSON.parse\`). On Node the
same segments decode in 0.64× format 3's time and encode in 0.99–1.07× of it. Where most strings
are text anyway (world-countries' translations carry one extra UTF-8 byte in 5.5, emojibase's
emoji one in 10), format 4 decoded 0–15% faster but took 35–70% longer to encode in the browsers,
so a writer keeps one table there (more than one extra byte in 16: \`wantsTextTable\`); their rows
below read as format 3 for that reason.`

const LARGE_TABLES = `Why the decoder reads a string table of more than 64 KiB in pieces (packages/core/src/codec/table-text.ts),
and what the encoder's fresh memory costs, in the table above (one page of Chromium; the
machine's figures move with its load, the ratios less). Chromium's \`TextDecoder\` turns one large
input of mostly-ASCII text into a string 13–25 times slower than the same bytes in pieces of
64 KiB (1.2–3.4 ms for 0.28–1 MB of ASCII text in one call, 3.4–14 ms with some Greek and Chinese
in it), and some pages of the same browser saw it only at some sizes: the cause is inside the
browser. The decoder decodes a table of more than
64 KiB in pieces and keeps them apart: each string is taken from the piece it lies in, and only a
string that crosses a piece's end is joined from two. Joining the pieces into one string instead
cost the persisted segments a third more (0.78–0.89× \`JSON.parse\` against 0.54×). Measured on
2026-11-28, a new Chromium for each page, three pages each, decode ×\`JSON.parse\`, pieces against
one call: world-countries 0.54–0.60× against 1.64–1.91×, emojibase 0.67–0.76× against
1.92–2.43×, browser-compat-data 0.69× against 0.67–0.72×, the persisted segments 0.55–0.57×
against 0.48–0.55×, the webhooks (tables of 18 kB at most) 1.07–1.40× against 1.30–1.40×. The
same kind of A/B of writing the joined strings in slices of 32 K characters instead of one
\`encodeInto\` showed no gain (segments 0.91–0.94× \`JSON.stringify\` against 0.83–0.98×), so
the encoder still writes them in one call. Node's \`TextDecoder\` shows it too: with both changes of
the day, a process per build and two each, world-countries decoded in 0.37× \`JSON.parse\`'s time
against 1.07–1.10× before them, emojibase 0.36–0.37× against 0.88–1.04×, the webhooks
0.58–0.87× against 0.78–0.96×, browser-compat-data 0.87–0.92× against 0.83–0.85×.

The same day the shape book stopped making a string of each SHAPE marker's bytes to look it up
(one \`TextDecoder\` call per marker: 1,456 markers and 433 kB of key lists per pass over the
webhooks, a quarter of their decode in a CPU profile) and looks it up by a sampled hash of the
bytes, compared four bytes a step: in one Chromium page the webhooks decoded in 1.11×
\`JSON.parse\`'s time against 1.27× (15 rounds, both builds in the page), browser-compat-data
0.89× against 1.00×.

The last rows are why encoding in the browser stays far behind \`JSON.stringify\` on the
webhooks (8× in the table of "Decode and encode in the browser"): every envelope \`encode\` hands
out is new memory, and on this machine (a virtual machine, where a page touched for the first
time costs a fault) copying 8.7 kB into a new \`Uint8Array\` takes 30–36 µs against 0.3–0.4 µs
into memory in hand. A CPU profile of the webhooks' encode (\`compress: 'never'\`, one page) put 65%
of its time in that copy (\`seal\`). \`JSON.stringify\` writes into V8's own heap, which reuses its
pages. Consumers that copy the bytes anyway (IndexedDB's \`put\`, a \`fetch\` body) could take a
view of memory the codec reuses; no API does that yet.`

const CRC_COLD = `Why the portable build computes the CRC-32 in WebAssembly (packages/core/src/codec/platform/crc32.wat): the
JavaScript CRC is as fast once V8 has optimized it (~2 GB/s), but a page's first envelope is
checked in V8's interpreter, and the loop is optimized only after thousands of turns, on threads
that a starting browser keeps busy: the first 55 kB in the table above, once per page, in every
fetchCached, read or restore that a page does first. WebAssembly is compiled before its first call.
The module compiles in the background when a codec is made, and the JavaScript CRC answers until
it is ready (or when it never will be: a Content Security Policy without 'wasm-unsafe-eval').
fetchCached of the 50 kB object (fetch-bench.ts), this build against the one before it (no
WebAssembly CRC, and withValidator computing the CRC anew over the payload where it now carries the
old one over), alternating in one run on 2026-11-27, medians of 9 new browsers: first load 150.7 ms
against 173.5 (1.67× against 1.93× the JSON path's 90.0 ms), reload 101.7 against 124.0 ms (1.12×
against 1.37× the JSON path's 90.6 ms). The fetch-bench.ts run above, the same evening, gave 1.63× and
1.46×: on this shared machine a reload's ratio moves by ±0.2 between runs of 7–9 browsers.`

const SHAPE_COMPILE = `The decoder builds an object of a shape it has seen often enough with a builder compiled from an
object literal (packages/core/src/codec/shape-book.ts), and the others by keyed stores. Compiling
is not free in a page that has just loaded: in a restore of the 5,000 webhook queries after a
real reload, the builders compiled after 8 objects of their shape came to 320 a restore, 19 ms in
\`new Function\` alone (timed call by call) and about as much again in each builder's first calls,
which run in V8's interpreter; most of these shapes are held by one payload of 329 and built 15
times in the whole restore. In Node, warm, a 20-key builder cost 17–24 µs to create and 16–22 µs
at its first call, and it stays slower than the keyed stores until it has run often enough to be
optimized: 400 shapes built 7 times each took 5.9 µs an object with their compiled builders
against 1.6 µs by keyed stores (3 keys: 0.9 against 1.1; 90 keys: 32 against 8), the keyed stores
being one function that every shape shares, optimized early. A compile pays only for a shape that
goes on being built. Since 2026-11-28 (the session of 11:30–14:30) a shape is compiled after
128 objects built with it (\`COMPILE_AFTER\`), and a compiled builder calls the decoder for each
value directly (\`d.value()\`), not through a closure. Chromium, a first save in a new browser over
a persistent profile and the restore in another (9 pairs, the builds alternating, medians):

| change | webhooks restore ms | small queries restore ms |
|---|---|---|
| compiled after 128 objects, against 8 | 370 against 400 | 238 against 249 |
| then the direct call, against the closure | 333 against 353 | 193 against 207 |
| (7 pairs) compiled after 64 / 128 / 256 objects | 345 / 326 / 341 | 206 / 212 / 201 |
| (5 pairs, the build before both) never compiled, against 8 | 372 against 334 | 234 against 201 |

The first decode of fetch-bench.ts's 50 kB object in a new page compiles nothing now; the second
decode of the same bytes took 5.5 ms with 8 shapes compiled in it, 0.7–1.0 ms without. What it
costs: a page that decodes the same payloads over and over builds a shape that only one payload
holds by keyed stores until its 128th object. The 329 webhook payloads decoded 40 times over in
one page (passes 10–40, three pages each, alternating): 1.21–1.38× \`JSON.parse\` against
1.15–1.26× with compiles after 8 objects, and the decode table of this run read them at 1.09×
(0.89× in the run before). The brief's first target is the page after a reload, where each shape
is met a few times and the compile does not pay back; a page that keeps decoding them compiles
them after 128 objects and then runs as before.`

const WORKER_MESSAGES = `The persister's restore inflates segments in a Worker (packages/persist/src/shared/compression-worker.ts)
while the main thread decodes. Each \`postMessage\` to the worker is a task posted to the worker's
thread; timed call by call in restores of 5,000 queries after a real reload (Chromium 156, this
2-core machine), most took well under 0.1 ms and some 1–3 ms: 70 messages cost the webhooks'
restore 19 ms of its main thread (8–28 ms over five restores), 39 messages the small queries' 14
ms. Since 2026-11-28 (the session of 11:30–14:30) the asks made in one task go in one message,
and a restore keeps up to six segments inflating (four before), asked for three at a time once
half of them are decoded. A first save in a new browser, then the restore in another, the two
builds alternating (medians):

| | webhooks: messages / ms in postMessage / restore ms | small queries: messages / ms in postMessage / restore ms |
|---|---|---|
| one message per ask, four ahead | 70 / 19 / 371–382 (three runs of 5–9 pairs) | 39 / 14 / 245–248 |
| asks of one task in one message, six ahead in threes | 23 / 23 / 354–382 | 12 / 2 / 211–223 |

The small queries' restores were faster in three runs (211, 215 and 223 ms against 247, 245 and
248) and alike in a fourth of 11 pairs, later, on a slower machine (245 against 240); the
webhooks' were within the noise (354, 364 and 382 against 379, 371 and 382), and their time in
\`postMessage\` did not fall with the number of messages. What it buys is the small queries' 12 ms
of \`postMessage\`, within this machine's noise for a whole restore. The saves did not
change (each segment's deflate is asked for in a task of its own).`

const WHY_MISSED = `## Why targets are missed

What the misses above come from, as measured (figures of a given run vary; the causes do not):

- **Browser decode (issue 18): the webhook payloads against \`JSON.parse\` in Firefox, and in
  Chromium in some runs (met in two of the last three, the latest among them).** Format 3's string
  table turned per-string UTF-8 decoding into one native call (world-countries went from 2.5× to
  0.45–0.71× \`JSON.parse\` in Chromium, emojibase to 0.71–0.75×, browser-compat-data to
  0.90–1.28×). For the 329 webhook payloads, two native passes that \`JSON.parse\` does not make
  cost about as much as \`JSON.parse\` itself before any object is built. One is the envelope's
  CRC-32: 0.24–0.39× \`JSON.parse\` of the same values in Chromium, 0.26–0.42× in Firefox (the row
  "of which the CRC-32"). The other is the one \`TextDecoder\` call per string table: measured in
  one Chromium page (2026-11-25), it turns all-ASCII UTF-8 into a string at 870–930 MB/s (the
  \`latin1\` label at 1,070 MB/s, so no label is much faster) and text with a few non-ASCII
  characters at 290–320 MB/s. The webhooks hold 2.8 MB of strings, all ASCII but for one value of
  329: ~3 ms, about half of \`JSON.parse\`'s time. The JavaScript that builds the objects is the
  smaller part left; the webhooks stay at 1.21–1.41× in Chromium over the runs of 2026-11-25 and
  -27 (the CRC-32 0.33–0.35× of it on 2026-11-27). Format 4 does not move them: only one payload
  of 329 has a string past ASCII. On 2026-11-28 the CRC-32 module went from eight bytes a step to
  sixteen (2.5–2.7 GB/s against 1.4–2.0 in one Chromium page), and the webhooks went from 1.37× to
  1.19× \`JSON.parse\` in the next run (the persisted segments from 0.56× to 0.49×). Later that day
  the shape book stopped making a string of each shape's key list and the decoder read large
  string tables in pieces (section "Large string tables in Chromium"): the webhooks at 1.03× in
  the next run, a miss by 3%; world-countries 0.50×, emojibase 0.71×, browser-compat-data 0.72×,
  the persisted segments 0.55×. What is left of the webhooks' decode is the CRC-32, the one
  \`TextDecoder\` call per table, and the JavaScript that builds the objects. In a later session a
  SHAPE marker whose key-list bytes the shape book already read as str keys was taken from the
  book without walking its keys again: 1.21× against 1.26× \`JSON.parse\` in new Chromium pages, the
  two builds alternating (6 pages each), and 0.89× in the full run that followed (met; the same
  run read world-countries at 0.47×, emojibase 0.74×, browser-compat-data 0.70×, the persisted
  segments 0.48×). Most of the step from 1.03× is the run: this machine moves these ratios by
  ±0.1 from one run to the next, and the change bought about 3%. In the session of 11:30–14:30
  the decoder began to compile a shape's builder only after 128 objects built with it (8 before;
  section "When a shape is compiled"), for the pages after a reload: in a page that decodes the
  329 payloads over and over, a shape that one payload holds is met once a pass, so within the
  bench's samples it is built by keyed stores where it was compiled before. The next run read the
  webhooks at 1.09× (missed; in a harness of 40 passes, 1.21–1.38× against 1.15–1.26× with the
  old threshold), world-countries 0.57×, emojibase 0.70×, browser-compat-data 0.74×, the persisted
  segments 0.44×; Firefox webhooks 1.52×, world-countries 1.20×, emojibase 1.22×,
  browser-compat-data 1.57×, the segments 1.07×.
  In the session of 06:40 (2026-11-29), with no change to the decoder, a run of the same script
  on an idle machine that ran every page's \`JSON.parse\` 2.4× slower than the day before read the
  webhooks at 0.88× (met), world-countries 0.42×, emojibase 0.60×, browser-compat-data 0.76×, the
  segments 0.49×; Firefox webhooks 1.23×, world-countries 0.96×, emojibase 1.07× (met),
  browser-compat-data 1.60×, the segments 0.83×. The webhooks' row has now been read at 0.88–1.09×
  over the last three runs of this build: the target sits inside this machine's spread.
  The check stays: it is what turns a flipped bit in IndexedDB or in transit into
  CHECKSUM_MISMATCH instead of a wrong value, and \`JSON.parse\` checks nothing. Firefox: webhooks
  1.65–1.75× and browser-compat-data 1.47–1.91×, world-countries and emojibase within 1.2× in
  most runs (0.95× and 1.14× in the run before, webhooks 1.59×, browser-compat-data
  1.33×; in the latest run webhooks 1.47×, world-countries 1.17×, emojibase 1.31×,
  browser-compat-data 1.50×, the persisted segments 1.08×). In
  that run the persisted segments read at 3.28× in Firefox against 1.13× before, but every method
  but \`JSON.parse\` and structuredClone slowed there too (format 2, which has no string table, 75 → 215
  ms; msgpackr with bundleStrings 98 → 195 ms; \`JSON.stringify\` 89 → 489 ms), and the two builds
  alternating in new Firefox pages decoded them alike (2.69–3.13× against 2.62–2.84× in that
  harness): the page, not the change. SpiderMonkey builds the objects slower than V8 (format 2 is 1.9–2.9× \`JSON.parse\` there in the table below), and its
  timer's 1 ms steps make a 4–7 ms decode coarse. In the session of 21:06 (2026-11-28) Firefox's own
  profiler (MOZ_PROFILER_STARTUP) put \`TextDecoder.decode\` of the string tables at about a third
  of a webhook decode, and in one page \`TextDecoder\` turned the payloads' ASCII into strings at
  80–160 MB/s where \`String.fromCharCode\` over 8 KiB pieces ran at 220–370 MB/s (Chromium's
  \`TextDecoder\`: 2.7–4.9 GB/s). Reading the ASCII table with \`String.fromCharCode\` instead, the two
  ways alternating in one Firefox page (31 rounds, two runs): the webhooks 1.64× and 1.89× against
  1.50× and 1.80× \`JSON.parse\`, world-countries 1.27× and 2.65× against 1.40× and 2.46×,
  emojibase alike, browser-compat-data 2.63× and 2.00× against 2.41× and 2.73×: no gain the runs
  can show (the profiler had inflated the share), and slower in Chromium. Not kept.
- **Dictionaries (issue 19): set + get and encode with a dictionary.** Without a
  dictionary a value under 1 KiB is not deflated at all (3.3 µs to encode a 0.9 kB user); with one
  it is, and on Node every deflate call pays a zlib stream made and freed for it: 7.3 µs for such a
  value without a dictionary, 9.0 µs with a 4 KiB one (measured alone; a smaller window or memLevel
  changes it by under 0.5 µs, and fflate in JavaScript takes 30 µs). Reusing one stream would need
  Node's private \`_processChunk\`. Reads pay an inflate (2.8 µs) too. The bytes are the gain: 0.23× a
  JSON string's Redis memory.
- **Browser encode and the persister's save and restore (issue 18).** The whole-client persister
  stores a segment as one value (layout 2: one header, CRC-32 and string table per ~512 KiB of
  MessagePack, 0.03× the JSON persister's bytes), deflates and inflates segments in a Worker, and
  since 2026-11-25 a restore has the worker inflate up to four segments ahead of the one the main
  thread decodes. Before, the next segment's inflate started only once this one was decoded: timed
  per segment after a real reload, each of 67 segments waited 2–7 ms for it, the worker and the
  main thread taking turns. In one run alternating the two builds after real reloads (5 rounds
  each): the webhook client restored in 681 ms against 893 ms before (the clone persister: 518 ms;
  1.31× against 1.72×), the small queries in 406 against 486 ms (clone 266; 1.53× against 1.83×).
  In one page, restore is met (0.65–0.91× the clone over runs) and so is save (0.92–0.99× the JSON
  persister; 1.03× for the small queries on 2026-11-27 and 1.01× on 2026-11-29, ties this machine cannot settle). What
  keeps a restore after a reload above the clone (1.23–1.72× over runs; 1.43× and 1.41× on
  2026-11-28, 1.43× and 1.48×, then 1.33× and 1.48×, in the latest runs that day, and 1.62× and 1.69×, then 1.49× and 1.46×, in a later session's runs of the next builds, with the decoder's one-pass
  DELTA, whole-table RECORDS builders and faster CRC-32, which a cold decoder hardly feels) is the decoder running cold, in a browser that is still starting. After a
  page reload in a running browser (the bench's section since 2026-11-28, a user's F5) it is
  1.16× and 1.82×, then 1.22× and 1.55×, in the later session's runs, 1.13× and 1.26× in the run before them (1.09× and 1.30×, 1.11× and 1.25×, then 1.20× and 1.25×, in the runs before); started one second after the page loaded, 1.16× and 1.37× after a browser
  restart and 1.18× and 1.32× after a page reload (table under "After a page reload"): the
  browser's start costs both persisters, and what is left is the JIT. In one page, a second
  restore right after the first took 72–79 ms against 168–219 ms (the small queries, five fresh
  browsers, the profiler on), and a restore in one page is 0.65–0.91× the clone over runs. Profiled (section
  "Where the main thread's time goes in the persister after a reload"), a restore keeps the main
  thread busy for 94–100% of its time, and the decode is 60% of it (the webhooks: ~240 of 390 ms
  busy, GC another 48): the clone persister's deserializer does the same work natively. The
  compiled object builders cost 23–33 ms of that restore in \`new Function\`, and pay for it: built by
  keyed stores instead (an A/B after real reloads, two runs each), restore + hydrate took 482–508
  ms against 443–444 for the webhooks, 254–262 against 253–277 for the small queries. Measured on 2026-11-27 with the same profile and code,
  the small queries' restore took 217–425 ms when it started as soon as the page had loaded (as
  the bench and a real reload do) and 127–148 ms when it started 1.5 s later; the clone persister
  took 122–139 against 87–98 ms. The decode of the segments alone went from 97–157 to 69–85 ms:
  V8 optimizes the decoder on background threads, which the browser's own start keeps busy on two
  cores, while the clone's deserializer is native and needs none (pausing between segments or not
  made no difference). Format 4 took the same restore from 252 to 192 ms (medians of 5, the two
  builds alternating; one query in 90 holds an emoji, which made every segment's table two-byte).
  Otherwise the decoder running cold: the first ten segments (~5 MB) take ~100 ms and the rest 2–5 ms
  each, while the clone's deserialization is native from its first call; opening the database,
  reading the manifest and the batch read of the segments take another 40–95 ms before the first
  decode (two batch reads, the first four segments alone, made no difference in an A/B). The
  string tables are 34.8 MB of UTF-8 over the webhooks' 67 segments, and \`TextDecoder\` turned
  them into strings in 52–70 ms of the restore's main thread (timed call by call after two real
  reloads, 2026-11-28). Having the worker decode them beside its inflate, and post the strings
  with the payload, made the restore slower, not faster: 529 against 394 ms (medians of 5 after
  real reloads), the main thread busy 100 ms longer and in GC for 104 ms against 54 in a trace.
  Strings that cross \`postMessage\` are copied into V8's young generation and copied again by
  each scavenge, where \`TextDecoder\`'s strings are not. Not kept. In the session of 11:30–14:30 the decoder
  compiled 320 shapes in each restore of the webhooks (19 ms in \`new Function\` alone, about as much
  again in the builders' first calls); a builder now waits for 128 objects of its shape (8 before)
  and calls the decoder for each value directly instead of through a closure: restores of 370
  against 400 ms, then 333 against 353 (medians of 9 pairs alternating), and in that session's run
  1.43× and 1.36× the clone after a browser restart, 1.13× and 1.72× after a page reload; in a
  second run, with the worker's messages grouped too and the machine slower (the clone's restores
  7–16% longer), 1.40× and 1.62×, 1.23× and 1.62×. In the session of 14:13 (2026-11-28), how much of that is V8's optimizing rather than the
  decoder's own memory (its shape book): new browsers over a saved profile of 5,000 webhook
  queries, \`restoreClient\` alone, medians of 6: 199 ms; 141 ms after 300 ms of decoding other
  data in the page (the small queries: the code optimized, the shape book cold); 124–132 ms when
  run a second time in the same page. Warming the decoder on a synthetic sample costs more than it
  saves when done first (10, 30 and 100 ms of warming: restores of 191, 195 and 164 ms, 207, 235
  and 272 ms with the warming, against 212), and in slices between the restore's own steps there
  is little idle time to warm it in (14–23 ms used of a 40 ms budget: 207 against 222 ms; 80 ms
  budgets 231 and 236 ms). Not kept. Save
  after a reload (1.19–1.71× over runs; 1.51× and 1.58×, then 1.32× and 1.26×, in a later session's runs of 2026-11-28, 1.42× and 1.35×, then 1.48× and 1.36×, in the next ones (the save's code unchanged),
  1.27× and 1.33×, then 1.27× and 1.22×, after a page reload; 1.36× and 1.47× in the run before, 1.21× and 1.37× after a
  page reload, 2026-11-28 (1.25×, 1.42×, 1.28× and 1.37×, then 1.36×, 1.49×, 1.32× and 1.44×, in
  the runs before it); 1.35× and 1.51× late on 2026-11-27, on a quiet machine; 0.73×
  and 0.80× in the evening run before it, on a machine that ran browsers 2–5× slower, which slowed
  the JSON persister's one large write most): encoding in JavaScript costs 4–5× \`JSON.stringify\`
  in Chromium, and more while cold (profiled, encoding the segments, \`encodeEnvelopeAsync\`, is ~64%
  of a first save's busy main thread: ~307 of 476 ms for the webhooks). Warm, in one Chromium page (2026-11-28, V8's sampling profiler over 3 s of passes), encoding the 329 webhook payloads took 14.1 ms against 2.0 ms of \`JSON.stringify\`: 23% in sealing the envelope, which copies the payload into memory of its own (in that page, allocating 329 arrays of the envelopes' sizes alone took 2.6 ms, and allocating and filling 38 arrays of ~0.5 MB, 37 ms: fresh memory costs there before a byte is written), 18% in \`TextEncoder.encodeInto\` of the string tables, 9% in the CRC-32, the rest in the encoder's walk of the value. The copy of each segment's payload that \`encodeEnvelopeAsync\` hands the worker went into new memory too, 21 ms of a first save's main thread in a profile; since 2026-11-28 it goes into arrays the codec keeps and reuses once the worker answered. Long tasks: each segment is decoded in the restore's own loop, between its
  pauses for the page (not in whichever task the worker's answer arrives); in one Chromium page
  the longest restore task (worst round) was 83 ms in the bench run of 2026-11-24 and 15–28 ms
  since (different runs on a noisy machine, not an A/B). After a reload, restore tasks are within
  50 ms in the runs of 2026-11-27 on a quiet machine (46 and 25 ms, then 27 and 28, then 32 and
  40 ms, worst rounds); in the slower evening run between them they were 93 and 83 ms, while the structured-clone persister's single restore task took 1,159 and 586 ms
  (every task there is 2–5× its length earlier the same day). Saving after a reload still has one: a
  page's first save used to encode 32 queries to learn their size and then a whole 512 KiB segment
  in one task (64 ms in a trace); it now probes 8, yields, and starts with 64 KiB segments that
  double (82 ms worst round left, the webhooks; 69, 54, 55, then 42, 64, 69 and 78 ms in the latest runs and
  54, 44, 70, 60, then 68 ms after a page reload; since the later session of 2026-11-28 each segment is also sized
  to encode in about twice \`sliceMs\` at the speed of the one before, 60 and 55 ms, medians 40 and 53, 27–36 ms for the small queries), and the task that remains holds a full
  mark-compact pause of V8 (36–40 ms of a 66–69 ms task in two traces) that the bench page's own
  5,000 structured clones leave behind: no slicing of the save's own work shortens it. In three first saves traced after a reload on 2026-11-29 (Chrome's trace, this build), the longest task was a minor collection (a scavenge, 37–57 ms) promoting those clones; with the page making short-lived objects for 0.2 s after filling the client, so that the clones were promoted before the save began, the longest task of three traced saves was 20–28 ms, each one segment's encode. Firefox's
  restore in one page has its longest tasks at 30–217 ms over runs (154, 94, 134, 124, 119, 193, then 217 ms worst
  rounds for the webhooks in the latest runs, 34, 52, 30, 48, 60, 56, then 48 ms for the small queries; its
  save's, 51, 82, 62, 46, 73, 53, then 45 ms for the webhooks), the same kind of pause: timed segment
  by segment in three restores of the webhooks in one Firefox page (late 2026-11-27), segments
  decoded in a median of 3–4 ms (90th percentile 7–13 ms), and every task over 30 ms was one
  segment of the usual size taking 29–64 ms, a different one in each restore (segments 22, 47 and
  67; 25, 40 and 58; 9): the collector's pauses land in them, while the restore builds the objects
  of 49 MB of JSON that it hands over. SpiderMonkey runs slices of its incremental collector when
  the page is idle, and the restore's pauses (a MessageChannel message each) never leave it idle:
  tried in the session of 11:30–14:30, a restore that waited 6 ms on a timer at every fourth pause
  had its longest task at 41 ms (median) and 61 ms (worst round) for the webhooks in one Firefox
  run, every second pause 54 and 167 ms, against 98 and 217 in the run before, which the spread
  of the runs before (94–217 ms) cannot tell from chance; in Chromium the same build restored the
  webhooks in 1.67× the clone after a browser restart against 1.40× (the idle time is lost there).
  Not kept. With the decoder's changes of 2026-11-28 (shape book looked
  up by bytes, string tables read in pieces), two runs after a reload, on a machine that then ran
  every browser 3–4× slower (the clone persister's restore after a restart 1,027–1,269 ms against
  307 ms the session before): restore after a browser restart 1.52× and 1.28× the clone (the
  webhooks), 1.46× and 1.30× (the small queries); after a page reload 2.26× and 1.93×, 1.30× and
  1.40×; save 0.64–0.93× the JSON persister (met, and flattered as on 2026-11-27's slow evening);
  longest tasks 98–188 ms while saving and 25–126 ms while restoring. In Firefox, one page:
  restore 0.59× and 0.58× the clone, save 0.42× and 0.50× the JSON persister (met), longest
  restore task 165 and 116 ms (missed). The rows at the top keep the quiet machine's run before
  these changes.
- **Chromium, webhooks in one page: fetch → value at 1.17× the JSON path (issue 18 asks 0.8×; 1.23× in the run before).**
  Each of the 329 payloads is its own response and its own IndexedDB transaction, one after
  another: 0.68 ms a payload for \`fetchCached\` against 0.55 ms for \`res.json()\` and a
  structured-clone put (2026-11-28). Both pay the transaction (0.45 ms of a clone put); the
  envelopes are the page codec's own (not deflated at these sizes), and Stowage's path reads the
  response as bytes, decodes them (the CRC-32, then JavaScript where \`res.json()\` is native: ~0.9×
  \`JSON.parse\` in the decode table) and stores them through the Cache (\`setBytes\`: its claims,
  the in-process tier and the store's own bookkeeping around the put). Per response that is
  ~0.13 ms more than the JSON path, work a batch of responses cannot share. Direct writes meet
  their 1.5× (1.39×; 1.44× in the run before).
  In the session of 16:44 (2026-11-28) the store's hot paths (one get, a batch of gets, a write
  without a byte budget) stopped going through idb's promise wrappers: in one page, 329 webhook
  envelopes put one per transaction took 319 ms through IndexedDB's own requests against 360 ms
  through the wrappers (idb-keyval: 297 ms; medians of 8). In the idb bench, four runs
  alternating the two builds: direct writes of the webhooks 430 against 457 ms (medians; 1.07–1.34×
  against 1.29–1.53× idb-keyval's), reads no change the runs could show, fetch → value
  1.02–1.38× against 1.05–1.57× (1.08× in the run in the table).
  In Firefox ESR 153 (one page, the same puts through \`store.set\`, four runs alternating the
  builds): 248 and 329 ms against 259 and 347 ms, 1.33× and 1.36× idb-keyval's time in the same
  runs against 1.81× and 1.74×.
- **Reads after a reload.** Each sample starts a new browser on the profile: opening the database
  and the cold JIT of the decoder are in every figure, as they are after a real reload; the clone
  path's deserialization is native from its first call. The CRC-32 no longer runs cold (section
  "The CRC-32 on a first screen"): reading the same envelopes as bytes alone takes 0.89–1.02× the
  clone in a batch, so what is left is decoding 329 values in a JavaScript engine that has not
  optimized the decoder yet. On a quiet machine that costs more against the clone than on a slow
  one: 1.91× in a batch and 1.14× one by one on 2026-11-27, against 1.56× and 1.29× in the slower
  evening run before it; with 21 samples a cell on 2026-11-28, 1.80× and 1.38×; with the
  decoder's changes later that day (11 samples a cell, a slower machine), 1.51× and 1.32×; at the
  end of a later session that day (11 samples, a machine 3–4× faster: the clone's batch in 81 ms
  against 280), 1.68× and 1.51×, the server's envelopes 2.63×; with shapes compiled after 128 objects and
  builders that call the decoder directly (the session of 11:30–14:30), 1.58× and 1.61×, the
  server's envelopes 2.58×; in the session of 14:13, 2.22× and 1.42×, the server's envelopes 4.05×
  (Stowage's batch at 105 ms as before, the clone's at 47 against 70). In that session a Cache
  read of bytes stored uncompressed stopped making promises of its own; four runs of 7 samples
  alternating the build before it and this one gave batches of 1.26× and 1.97× against 1.95× and
  1.62×, one by one 1.49× and 1.74× against 1.47× and 1.42×: the spread of the runs, no difference
  between the builds that they can show. Since the session of 16:44 (2026-11-28) \`acceptBytes\`
  keeps a deflated envelope inflated where the cache's codec would not have deflated it (in a
  browser, under 256 KiB): the server's envelopes, kept as they came, cost the 329 cold inflates
  in fflate on top of the decode (in a new page, fflate took 59–113 ms for all 329 the first time
  and 31 ms once warm; the native DecompressionStream took 450–700 ms, ~1.5 ms a stream even with
  all 329 at once, so it is no way out at these sizes). In the run of that session (9 samples, a
  machine five times slower than the one before: the clone's batch in 239 ms), the server's
  envelopes read in 1.76× the clone's time in a batch and 1.39× one by one, against 3.00× and
  1.73× kept as they came (\`inflate: false\`, the row below them), as the page's own envelopes do
  (1.77× and 1.34×); they take 2.81 MB in IndexedDB instead of 0.65 MB.
  In Firefox ESR 153 (one page, 9 passes after storing, so code partly warm; no reload bench runs
  there yet): the server's envelopes read in a batch in 1.50× the structured clone's time kept
  inflated against 2.45× kept as they came (medians 60 and 98 ms, the clone 40, \`JSON.parse\` of
  JSON strings 53); the first pass 78 against 92 ms. In the session of 21:06 (2026-11-28), how much of a
  cold decode is V8 not having optimized yet, measured in Node (the 329 webhook envelopes written
  by another process, each decoded once in a new process, five processes, quiet machine): the
  first pass took 57–67 ms against 19–20 ms of \`JSON.parse\`'s first pass over the same values;
  with V8's optimizing tiers off (\`--no-opt --no-maglev\`) the first pass took 60 ms and the second
  27 ms, and with the baseline compiler from the first call (\`--always-sparkplug\`) 58–60 and
  28 ms. So the first pass's extra ~30 ms is not the interpreter but one-time work: the shapes'
  hidden classes made for the first time (V8's keyed stores, 12.7 ms of the first pass's 57 in
  a profile), the shape book and key cache filled, and lazy compiles. Building objects another way
  without compiling (a spread of a template object, \`Object.fromEntries\`) was no faster in a
  micro-benchmark of 300 shapes of 20 keys (40–60 ms for 6,000 objects either way); only a
  compiled literal is (2–5 ms once compiled, 25 ms with the compiles of 300 builders).
- **\`fetchCached\` of a 50 kB object on a first screen (issue 18).** In a browser started anew,
  every function Stowage runs is cold, while \`res.json()\` is native from its first call. Inflating
  the 12 kB envelope in fflate took 11–57 ms the first time; it now goes through the native
  DecompressionStream (~1.5 ms), which halved the first load (177.9 → 85.5–95.4 ms, 4.46× →
  1.87–2.03×; 2.34× in the latest run). The CRC-32 ran in V8's interpreter too: four passes over
  the inflated envelope (sealing it, withValidator checking and computing it anew, the decode),
  18 ms in a profiled first load. withValidator now carries the CRC over to the new header without
  reading the payload, and the portable build computes CRCs in WebAssembly (section "The CRC-32 on
  a first screen"): in an A/B, first load 1.67× against 1.93×, reload 1.12× against 1.37×
  (1.63× and 1.46× in the evening's bench run, on a machine that ran browsers 2–5× slower; 1.80×
  and 1.89× on 2026-11-27 on a quiet one, and 2.31× and 1.44× with 21 samples a cell on
  2026-11-28, where the JSON path's 20–33 ms leave less to hide Stowage's JavaScript behind; 2.27×
  and 1.72× in the next run on a slow machine, 2.51× and 1.78× at the end of a later session
  that day, the JSON path at 23 and 17 ms, and 2.06× and 2.13× in the session of 11:30–14:30, the
  JSON path at 26 and 16 ms). Timed step by step in new browsers (7 each, that session): making
  the Cache and its store 2–4 ms; opening the new database and finding no entry 16–22 ms, before
  the request can go out (the stored copy's validator is in the database; the JSON path opens its
  database only to write, after the response); the response 5–11 ms; inflating 2–4 ms; the first
  decode 8–12 ms (the second of the same bytes 0.7–1.0 ms); the write 4–5 ms: 49–72 ms against
  20–30 ms for the JSON path. Since the session of 14:13 the request no longer waits for the
  database: fetchCached remembers in \`localStorage\` the validator each copy was kept with and
  sends the request at once, with it or, knowing of no copy, without one, while the store is read
  (a 304 counts only when the stored copy has the validator sent; \`validatorHints\` in
  @stowage/http's README; a key it knows nothing of in a namespace it has kept copies in still
  waits for the store). On loopback, where the answer comes at once, that hides little: 1.80× and
  1.81× in that session's first run (the JSON path at 33 and 20 ms), 1.72× and 2.10× in its last
  (26 and 15 ms), and in a run that alternated the builds, 51 against 57 ms and 34 against 31 ms
  (medians of 12). From a server 40 ms away (a row of the table since then, not a target) it hides
  the database: 1.07× and 0.84×, then 1.21× and 0.92× in the two runs, and 1.08× and 0.88× against
  1.34× and 1.00× without hints in the alternating run; the run of this stop's code: 1.71× and
  1.36× on loopback, 1.31× and 0.91× from 40 ms away. Tried in that session and taken back: a 200
  to the early request inflated, decoded and handed to the cache at once, only its write waiting
  for the database. Timed step by step in five new profiles, the first load's headers came at
  12–23 ms, inflate and decode ended at 26–43 ms, and the database answered the first read at
  34–55 ms (26–48 ms after it was asked, the longest step), the whole call 37–62 ms; on the reload
  the stored copy's first decode took 12–28 ms after the read (the JSON path's whole reload:
  14 ms). Its bench run gave 1.93× and 2.45× on loopback, 1.13× and 0.91× from 40 ms away: no
  gain the runs' spread could show. And a review found that writing before the store had
  answered let the old copy's delete (a damaged one) land after the new write, let a sign-out
  during the lookup be missed (the copy reported kept, the scope's hint written back), and left
  the answer written when the call failed. Reverted. What is left is not one hotspot but Stowage's JavaScript running
  cold: profiled (section "Where the main thread's time goes on a first screen"), a first load
  keeps the main thread busy for 63 ms against the JSON path's 18, 43 ms of it in the bundle's
  JavaScript, spread over 140 functions of which 11 take 1 ms or more of their own time (the decode
  ~15 ms with what it calls); \`res.json()\` and the structured clone are native from their first
  call. Warming the decoder up while the database opens (a sample value encoded and decoded three
  times, 6–7 ms of work) saved 1.5–3 ms of the first decode after it (the 50 kB object: 7.3–7.9 →
  4.5–6.5 ms; a 512 KiB segment: 10.8 → 8.3 ms; medians of 5–7 new pages, alternating): less than
  it costs, not kept. From 2 MB up the bytes win on reloads (0.76× in the latest run, 0.60×, 0.86×
  and 0.73× in the ones before).
  In the session of 16:44 (2026-11-28), on a machine about 3.5 times slower (the JSON path's first
  load at 87 against 25 ms): 1.89× and 1.66× on loopback, 1.55× and 0.90× from 40 ms away, 2 MB
  at 1.05× and 0.61×. Since then \`inflateEnvelope\`, which fetchCached uses to keep a deflated
  envelope inflated in a browser, decodes the value once within the work the received bytes
  allow before it seals the inflated form (a review found that a small envelope asking more work
  than its size allows was otherwise kept large, where reads allow it) when the inflated form's
  budget would be larger than the received one's, which is past 64 KiB of payload: the 50 kB
  object (32 kB of MessagePack) is not decoded twice, the 2 MB one is. **Firefox** (firefox-esr 153, the same
  bench, \`--browser firefox\`, first timed then): 1.73× and 1.28× on loopback (the JSON path at
  44 and 32 ms), 1.17× and 0.91× from 40 ms away, and 2 MB at 0.96× and 0.58×: in Firefox the
  JSON path's \`res.json()\` and structured-clone write of 1.8 MB take 225 ms, where Stowage keeps
  146 kB. On 2026-11-29, after the ETag became a SHA-256 (fetchCached then keeps every server's ETag in the envelope's header), an A/B in Chromium (7 samples each, one run after the other): this code 98.0 and 73.5 ms for the 50 kB first load and reload, the code before it 98.3 and 70.1 ms: no change the runs can show. The ratios of those runs, 2.70× and 3.09× (the JSON path at 36 and 24 ms) and 1.52× and 2.54× (65 and 28 ms), are the worst yet on loopback: the JSON path's times moved by half between the two runs while Stowage's stayed put, and both ratios put Stowage's reload near 70 ms where the sessions before had 31–57 ms. With the session's last code (conditional requests sent with \`cache: 'no-store'\`, every server ETag kept in the header), one run each, 7 samples, JSON path → idb-keyval beside it: Chromium 50 kB first load 71.0 against 39.2 ms (1.81×), reload 57.6 against 32.4 (1.78×), 2 MB 1.56× and 0.77×, 40 ms away 1.41× and 1.03×; Firefox ESR 153 50 kB 53 against 33 ms (1.61×), reload 27 against 27 (1.00×), 2 MB 1.32× and 0.63×, 40 ms away 1.09× and 0.92×. The 1.2× target stays missed on loopback in both. On 2026-11-29 (the session of 06:40; servers sending \`Cache-Control: max-age=0\`, as \`serveCached\ now does, instead of \`no-cache\`, which fetchCached no longer keeps), Chromium, 7 samples on an idle machine: 50 kB 2.46× and 2.17× (the JSON path at 34 and 31 ms), 2 MB 1.34× and 0.82×, 40 ms away 1.37× and 0.92×.
- **\`serveCached\` rendering JSON for a new envelope (issue 24, item 7).** A render, or the
  decision that its JSON would pass \`maxJsonBytes\` (406), is one decode per envelope and is then
  kept: later requests cost 0.1 ms. Deciding needs the decode (a RECORDS table's rows count against
  no limit a JSON size could bound without refusing values that fit), so the first request for
  each new 483-byte envelope of 100,000 rows costs 7–10 ms warm and 15–22 ms in a cold process.
- **Hostile inputs beyond the issue lists: 1 Mi empty typed arrays (3 kB) and a 15 MiB string
  (15 kB).** Both end as they must (LIMIT_EXCEEDED, the string), but in 105–114 and 168–230 ms in a
  fresh process. The work budget lets an envelope under 64 KiB inflate up to 16 MiB (one unit per
  8 bytes); inflating and decoding 15 MiB costs 61 ms warm, the rest is the new process touching
  the new memory. Counting inflated bytes dearer would store sparse honest values (zeros in typed
  arrays) uncompressed, so it waits for measurements of that trade.
- **What \`@stowage/persist\` + \`@stowage/idb\` add to an app: 38.9 KiB gzipped against issue 18's
  20 KiB** (idb-keyval with TanStack's persister: 0.9 KiB; the compression worker added 0.8 KiB).
  Most of it is \`@stowage/core\`'s codec (27.5 KiB: shapes, the string table, RECORDS, the limits and the work budget, the portable
  build's check for bytes after a deflate stream, the messages that name bytes which became text),
  which the persister needs whole to read any envelope; \`packages/persist/scripts/check-size.mjs\`
  keeps it from growing unnoticed.
- **Webhook payloads, bytes against JSON + gzip 6.** Two causes. The level: Stowage deflates values
  under 64 KiB at level 1, because every write pays the deflate (section "Compression policy";
  level 6 gives 0.180× JSON here and cost W2 through Redis 0.24× JSON's pairs per second). And
  MessagePack itself: every string carries its length before its bytes, and those lengths differ
  between otherwise repeated URLs, so deflate finds shorter matches than in JSON, where a quote is
  the same byte every time. The same payloads with every string header replaced by one constant
  byte deflated to 0.147× instead of 0.180× at level 6 (an experiment, not a format: a reader needs
  the lengths).
- **Webhook payloads, a peer both smaller and faster.** msgpackr records + deflate 1 comes out about
  2% smaller at a time within this machine's noise of Stowage's. Stowage's MessagePack of these
  payloads is 0.4% larger than msgpackr's (a shape is written as a plain map at first sight and
  defined at the second), and deflate widens that. At level 3 Stowage matches msgpackr's bytes in
  the same time on this data, but level 3 costs 1.55× level 1's encode time on the text-heavy W2
  post, so the default stays at level 1.
- **Decode, \`compress: 'never'\`, webhooks ≤ 1.2× JSON.parse.** Between 1.10× and 1.72× over the
  last runs with the same decoder: this shared 2-core machine cannot resolve the target.
- **Chromium: the \`fetchCached\` path and reads, W2 and webhooks.** The JSON path ends in the
  browser's native \`JSON.parse\` and the clone path in native structured-clone deserialization;
  Stowage reads bytes from IndexedDB (cheap) and decodes them in JavaScript, which on object-heavy
  data costs 1.0–1.4× those native paths. On W1's columns Stowage reads far faster than the clone
  (0.04–0.06×); the emojibase array goes either way between runs (0.69–1.50×). Chromium's timer has 0.1 ms steps: a W2 read of 0.60 ms against 0.60 ms is a tie that
  floating-point noise may count as missed.
- **Issue 5, W2 stored ≤ 0.4× structured clone.** Browsers deflate from 256 KiB only (below that
  fflate is JavaScript and the native streams have about 1 ms of fixed latency, section "fflate and
  the native streams in Chromium"), so W2 sits uncompressed in IndexedDB; \`compress: 'always'\`
  stores it at about 0.21× the clone.
- **Issue 4, W2 through Redis: ops ≥ 0.6× and memory ≤ 0.35×.** No one level meets both. At level
  1 the value (about 8.4 kB) lands just above jemalloc's 8 KiB size class, so Redis allocates 10 KiB
  (0.358×) while ops/s sit near the target (0.53–0.72× over runs); from level 4 it fits 8 KiB
  (0.287×) but the encode costs 1.7–4× (level 6: 0.24× the ops/s). Writes are paid on every
  request, so the default is level 1.
- **Issue 4, W1-1000 through Redis: ops ≥ 2.0× JSON (missed in some runs).** 1.88× in this run,
  1.99× in a run of the Redis section alone right after it, 2.28× the day before. Each write is now
  a small Lua script (\`EVALSHA\`) that returns only the old value's first 40 bytes, so that an
  overwrite never sends the old value back and a replaced chunk manifest is always seen; on loopback
  it costs about 8 µs per SET + GET pair against \`SET … GET\` (188 against 179 µs for a 125-byte
  value, medians of 6 × 10,000), about 5%. The rest of the spread is this machine: in the same runs
  @msgpack/msgpack, whose code did not change, moved from 1.46× to 1.06×.
- **W4, a peer both smaller and faster (in some runs).** msgpackr records writes the token in
  121 B against Stowage's 126 B (an 8-byte envelope header: magic, version, flags, CRC-32), and the
  times, about a microsecond each, trade places between runs (Stowage 1.5–1.9× JSON, msgpackr
  1.1–1.7×). A trained dictionary takes Stowage to 0.47× plain MessagePack.
- **Cache façades over Redis (issue 10): set against bentocache, and memory.** A set is one Redis
  round trip for both (Stowage's a small script that also tells whether the old value was a chunk
  manifest, so that overwrites never send the old value back), and the round trip dominates: on
  the 1 kB object Stowage is 0.79–1.07× bentocache over runs (the script adds about 8 µs to its ~110 µs); on W1-1000
  Stowage's encode and deflate (to 125 B) win 1.6–1.9×, short of 2×. The 1 kB object is 0.88× the peers' Redis memory, not 0.7×: under 1 KiB
  of payload Stowage does not deflate (\`compressThreshold\`, section "Compression policy"), so it
  stores ~830 B of MessagePack; a trained dictionary would take it far lower, but is not a default.
- **Issue 25, the Cache with its in-process tier off against msgpackr in the article's benchmark
  (≥ 0.9× at every N, ≥ 1.0× as a mean).** In the session of 14:13 (2026-11-28), after a read
  through the Redis store became one promise chain and the Cache opened bytes stored uncompressed
  without a promise (a Cache read ~2.5 kB lighter, 1.11–1.15× the article handler's
  \`getBuffer\` + \`decode\` through the local Redis with 10 in flight against 1.21–1.24×, four
  alternating runs at N = 10): 0.94–1.05× from N = 1 to 1,000 and at 100,000 (0.96× at N = 10,
  0.94× at 100), 0.86× at N = 10,000 where GC decided it (12.2% against msgpackr's 4.2%), mean
  0.96×, on a machine three times faster than in the run before (42,734 against 12,504 req/s at
  N = 1). Before that, 0.81–1.06× in one run, mean 0.94× (0.95× and 0.86×
  in the RESULTS runs before); other runs of 2026-11-25 gave means of 0.84–0.99×. Since the
  decoder sums DELTA data as it reads it and builds RECORDS rows in one loop (2026-11-28) it is
  0.95–1.06× from N = 100 up (0.87–0.89× at N = 100 to 10,000 before), and missed at N = 1 and 10
  (0.81× and 0.88×; 0.89× and 0.88× in another run of the same build), where the decode is ~1 µs
  of a ~35 µs request. From N = 10 to 1,000 the Cache's read path around the codec is what costs:
  the breaker, the store call, the claim, an async decode, 16.1 KiB allocated per request against
  the codec variant's 10.6 (18.4 before one timer for all of the store's deadlines and fewer async
  steps, section "Where the read path spends and allocates at N = 10,000"); the codec variant
  itself is 0.87–0.97× there. N = 1 is where this machine's runs differ most (the codec variant,
  untouched at that N, gave 0.76–1.09× over the day's runs). At N = 10,000 garbage collection
  decides it.
- **Issue 25, the Cache as its README configures it ≥ 1.3× msgpackr.** A hit of the in-process tier
  skips Redis and the decode, 1.94× and 1.70× at N = 1 and 10 in the session of 14:13 (1.04–1.16×
  from N = 100, the ceiling with no cache at all 1.06–1.31× there), 1.49× and 1.65× in the run before (1.38–1.70× up to N = 100 on
  2026-11-27), but Fastify still turns the reply into
  JSON, about half of the server's CPU from N = 1,000 in every variant, so from N = 100 a hit
  saves a smaller share: 1.07–1.27× at N = 100 to 100,000 here (1.13–1.20× at N = 1,000 and 10,000
  on 2026-11-27). At N = 1,000,000 every variant
  waits on ~80 MB of \`JSON.stringify\` per reply; 10 requests each give 0.67–1.07×, noise. A
  sixth variant since 2026-11-28 measures the ceiling of any in-process cache: a handler that
  returns the value it built once, without Redis or a cache. In its first run (N = 1, 100, 1,000
  and 10,000, two 5 s runs each, on a loaded machine) it served 1.63×, 1.15×, 1.24× and 1.61×
  msgpackr's req/s, and the Cache as its README configures it 1.42×, 1.18×, 1.19× and 1.37×: at
  N = 100 and 1,000 the ceiling itself is under 1.3×, and the Cache's hits come within 0–15% of
  it. The target cannot be met there by any cache in this handler.
- **Issue 25, GC within 5 points of msgpackr's.** Missed at N = 10,000: 12.8% and 12.2% against
  msgpackr's 4.2% in the session of 14:13; before, 11.1% and 11.4% for the
  Stowage variants here against msgpackr's 3.2% (12.6% and 17.0% against 4.6% on 2026-11-27;
  25–26% in a run of 2026-11-25 without the columns the decoder now keeps on Node). A request now allocates as much as msgpackr's; V8's
  pretenuring still lands on the costly side for Stowage's rows more often than for msgpackr's
  (section "Where the read path spends and allocates at N = 10,000"). In the session of 21:06 (2026-11-28) the decode loop of
  that section (apps/bench/src/decode-gc.ts, V8's defaults, three fresh processes each) landed
  both ways for both codecs: msgpackr 100%, 101% and 8% GC, Stowage deflated 39%, 65% and 9%,
  uncompressed 66%, 35% and 10%; with \`--no-allocation-site-pretenuring\` msgpackr 101–102%,
  Stowage 106–111% (175–195 young-generation GCs per 1,000 decodes against 167–171).
- **Hostile, 2^26 paths within maxDepth** (beyond the issue's list): the encoder walks items until
  the count passes \`maxItems\` (4 Mi by default), about a quarter of a second; a smaller
  \`maxItems\` refuses it sooner.
`

// What the profiles of the article's server say (issue 25, item 3), measured once; the figures
// of a given run vary, the causes do not.
const ARTICLE_FINDINGS = `Findings (issue 25, item 3; measured on 2026-11-24 with the codec that ships, format 3):

- **The gap is garbage collection, and it is young-generation collections.** With \`--trace-gc\`
  over 5 s at N = 10,000, the codec variant ran 231 scavenges (1,112 ms, 4.8 ms each) for 896
  requests, msgpackr 168 (274 ms, 1.6 ms each) for 1,195: 1.24 against 0.23 ms of scavenging per
  request. Mark-compacts were 71 against 27 ms. The CPU profiles put \`(garbage collector)\` at
  16–21% of busy main-thread time for the two Stowage variants that decode on every request, 2–5%
  for msgpackr, JSON and the Cache with its in-process tier (which does not decode on a hit).
- **Where Stowage allocates more: columns and intermediate arrays.** Per request, the decoder's own
  sites allocate about 790 KiB against msgpackr's 235 KiB (\`read\` and \`readArray\`, one array of
  rows): \`Decoder.array\` ~470 KiB, six arrays of 10,000 values (the RECORDS columns and DELTA
  runs, all read before any row is built); \`records\` / \`rowsFromColumns\` ~157 KiB, two arrays of
  10,000 rows (the outer rows, and the nested \`{ isEven }\` objects, which become a column of the
  outer RECORDS);
  \`extValue\` ~157 KiB, which is 10,000 × 16 bytes: DELTA's running sums of \`createdAt\` are
  not small integers, so each is a new heap number, boxed once more when the row is built. The rows
  themselves cost both codecs about the same (~1 MiB in the row builders both compile,
  \`(anonymous)\`). Key strings do not show among the top sites (the rows have three keys), nor do
  Buffer views: the 376-byte reply and the ~30 KB inflated payload are Buffers outside the
  JavaScript heap, and \`decode\` reads a Buffer through one plain view. Fastify's
  \`JSON.stringify\` of the reply (~0.8 MB per response) is the largest allocation of every
  variant and ~50% of the CPU.
- **Why ~0.6 MiB more costs 5× the GC time: pretenuring.** V8 decides per allocation site whether
  to allocate straight into the old generation from how many of its objects survive a scavenge
  (85% and more). When it does for the rows, scavenges are rare and short; when it does not, every
  scavenge copies the ~10 values in flight (about 1 MB each), 5–7 ms a pause. In the decode loop
  both codecs land on either side from one fresh process to the next (msgpackr 8% or 72–74% GC,
  Stowage 11–12% or 64–81%); with \`--no-allocation-site-pretenuring\` both pay 72–87%, and there
  Stowage runs 244 scavenges per 1,000 decodes against msgpackr's 153: it allocates ~1.6× as much
  that dies young. In the server at N = 10,000, over the runs of 2026-11-24, the codec variant
  landed on the costly side in six of seven (14–28% GC) and once on the cheap one (2.6%, and then
  0.91× msgpackr's req/s); the Cache with its tier off, which decodes the same way, in four of four
  (18–21%); msgpackr on the cheap side every time (4–8%). Which side a run lands on is the largest
  single cause of the spread of the Stowage variants' req/s at this N.
- **What changed on 2026-11-25: on Node the decoder keeps its columns.** RECORDS of 4,096 rows
  and more are read into column arrays the decoder keeps from one decode to the next
  (packages/core/src/codec/column-pool.ts: one per column and nesting level, emptied after use, at
  most 2^19 slots; the Node platform makes the pool), and their nested RECORDS and DELTA columns
  are filled in place. In the server at N = 10,000 (the profile above) a request allocates
  3,389 KiB against msgpackr's 3,333 (4,320 against 3,370 in a run the same day without the pool),
  and the Stowage variants served 1.15× and 1.22× msgpackr's requests in the profile (0.87× in the
  run without). With \`--no-allocation-site-pretenuring\` the decode loop runs 177–182
  young-generation GCs per 1,000 decodes against msgpackr's 171–179 (242–295 without the pool).
- **Why only on Node, and only from 4,096 rows.** Every store into an array the pool keeps (in the
  old generation) passes V8's write barrier. In a loop that keeps no value alive, where scavenges
  are cheap, that costs more than the allocations it saves: with the pool, W1-10,000 decoded 7–8%
  slower in Node and 21% slower in Chromium, and W1-1,000 20% slower in Chromium (old and new code
  alternating in one process or page). In the server, where ~10 responses in flight make every
  scavenge copy megabytes, fewer scavenges win: GC 11–17% in four runs with the pool against
  18–26% in two runs without (msgpackr 4–6%), and 0.85–1.09× msgpackr's requests per second against
  0.73–0.96×. Browsers and other runtimes, and tables under 4,096 rows, read into new arrays as
  before: in Chromium the portable build now decodes the four real corpora, W1-1,000 and
  W1-10,000 at 0.98–1.01× the previous code.
- **Still missed: GC within 5 points.** 11.1% and 11.4% for the Stowage variants at N = 10,000 in
  the run above, against msgpackr's 3.2% (12.6% and 17.0% against 4.6% in the run of 2026-11-27). With allocations now equal, what remains is V8's
  pretenuring: in the decode loop with V8's defaults msgpackr lands on the cheap side in one or two
  fresh processes of three, Stowage in at most one. Keeping DELTA sums in a \`Float64Array\` was
  tried: it moved the boxing of \`createdAt\` from the decoder to the row builder (the same
  ~156 KiB) and gave 17–18% GC in its run; not kept.
- **What changed on 2026-11-28: DELTA summed as it is read, and whole-table row builders.** The
  decoder read a DELTA column into an array and then summed it in a second pass (\`fromDeltas\`:
  12.5% of a W1-10,000 decode in a CPU profile, and ~150 KiB a request of boxed sums in the
  profile of 2026-11-25); it now sums each difference as it reads it, small ones without a call.
  A compiled shape built each RECORDS row through one call site that every shape shares; it now
  builds the whole table in a loop of its own, each column looked up once (\`Shape.rows\`,
  packages/core/src/codec/shape-book.ts). W1 decode on Node in a loop of its own, medians (one
  process per codec, this machine, quiet): N = 100 6.8 → 3.8–4.0 µs, N = 1,000 59 → 33–35 µs,
  N = 10,000 685 → 371–433 µs, against msgpackr's 5.1–5.2, 50–54 and 455–526 µs in the same runs:
  0.7–0.8× msgpackr's time, where it was 1.1–1.3×. In the server (the run above, this build
  before the claim-count change of the same day, which it does not include) the codec variant
  serves 0.92–1.09× msgpackr's requests (geometric mean 1.00×) and the Cache with its tier off
  0.95–1.06× from N = 100 up, but 0.81× and 0.88× at N = 1 and 10, where the codec variant gave
  0.92× and 0.95×: there the request costs ~35 µs, the decode ~1 µs, and what the Cache adds
  around it (claims, single flight, the store's deadline, opening the entry: ~1.4 µs over a store
  that answers at once, 2.2 µs over Redis) is what is left; an earlier run of the same build gave
  0.89× and 0.88× there, 0.98× and 0.99× at N = 100 and 1,000. Claims are now counted per key
  instead of kept in a Set per key (packages/core/src/cache/claims.ts): a read through a store
  that answers at once, 2.15 → 1.98–2.04 µs against 0.57–0.60 µs for the decode alone (1.92 µs
  before a review's fixes: a claim keeps the answer it had when it ended, and a book ends only
  its own claims). The Cache as its
  README configures it stays at 1.07–1.65×, its misses at N ≥ 100 are the in-process tier's own
  cost (a hit hands out a frozen value; Fastify's serialization of the reply is ~50% of every
  variant's time). At N = 1,000,000 its key shows 0 B: the run outlasted the 60 s TTL, and the
  in-process tier answered every request. GC, the same in kind: the profile allocates about as
  much per request as msgpackr's (the decoder's sites: 1,105 KiB of row builders and 79 KiB of row
  arrays against msgpackr's 946 + 156 + 79 KiB; the DELTA sums no longer show) yet spends 10.9–11.0%
  in GC against msgpackr's 5.0%. Alternating runs at N = 10,000 with the column pool on, off, and
  on only for DELTA columns (so that no old-generation array holds young objects) gave 9.4–15.5%,
  12.1–18.9% and 8.9–16.5% for the codec variant (msgpackr 3.1–4.0%): the pool stays, and what
  decides is still which side of V8's pretenuring a process lands on.
- **The Cache's read path around the codec (2026-11-25).** One timer for all of a Redis store's
  command deadlines instead of a timer and a \`Promise.race\` per call, no async frame of its own in
  the store's call, the breaker's closed path or opening an entry without tags, schema or
  dictionaries. In the profile at N = 1 the Cache with its tier off served 0.91× msgpackr's
  requests (55,327 against 60,985), 0.82× before (41,125 against 50,439); 16.1 KiB allocated per
  request, 18.4 before, against the codec variant's 10.6. In the full run above it is 1.00× at
  N = 1 (0.74–0.86× in the other runs of the day, where the codec variant, which none of these
  changes touches at N = 1, gave 0.76–1.03×): at N = 1 this machine's runs differ by ±15%.
`

const results = `# Benchmark results

Written by \`pnpm bench\` (apps/bench/src/run.ts) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
${process.arch}. Every figure of a table comes from one process that ran all methods on the same
data; read ratios, not absolute numbers (these machines are shared and noisy). Timings are tinybench
medians after warm-up (codec table: the median of 3 rounds with the method order rotated). Real data
comes from npm data packages (apps/bench/src/real-data.ts): the 329 GitHub webhook example payloads
(\`@octokit/webhooks-examples\`, stored one value per key), \`world-countries\`, \`emojibase-data\`
(rows with optional fields) and the \`javascript\` part of \`@mdn/browser-compat-data\`. Synthetic
workloads (apps/bench/src/workloads.ts) are labelled as such: W1 is the seed article's array of
sorted rows, Stowage's best case (DELTA columns); \`W1-1000 shuffled\` is the same rows in random
order; W2 is a 30 kB blog post, W3 1001 objects of 101 long strings, W4 a 120-byte session token.

## Targets of issue 18 (the browser: codec v3 and v4, reads after a reload, the persisted client)

Measured in real Chromium and Firefox (Debian builds, headless); sections "Decode and encode in
the browser", "Reads after a reload" and "App state persisted" below have the tables.

${browserTargets.table}

## Targets of issue 19 (dictionaries that manage themselves)

Through a real Redis (its own redis-server); section "Dictionaries through Redis" below has the tables.

${dictionary19.table}

## Targets of issue 9 (codec v2), with ioredis imported in the process

${targets.table}

Browser targets (Chromium, section "IndexedDB in Chromium" below):

| target | measured | |
|---|---|---|
${browser.map(([name, value, ok]) => `| ${name} | ${fmt(value, 2)}× | ${check(ok)} |`).join('\n')}

Hostile inputs: ${hostileRows.filter((h) => h.met).length} of ${hostileRows.length} refused in under 100 ms and 64 MB (section "Hostile inputs" below).

${missed.length === 0 ? 'Every target was met in this run.' : `Missed in this run: ${missed.length}; section "Why targets are missed" below says why.`}

## Targets of issue 2 (codec v1), kept as regression checks

${issue2Targets(loaded)}

${missed.length === 0 ? '' : WHY_MISSED}

## Codec table, ioredis imported

${table(loaded)}

## What each change bought (issue 9)

${markdown(micro)}

## Dictionaries (issue 9)

${markdown(dictionary)}

## Dictionaries through Redis (issue 19)

${markdown(dictionaryRedis)}

## Dictionaries a cache trains (issue 19)

Small real values: a dictionary trained on the first N of a fixed shuffle, measured on held-out
values it never saw (up to 100), against the same values without one; the time \`trainDictionary\`
took. \`autoDictionary\`'s defaults (100 samples, 4 KiB) come from here: 50 to 400 samples land
within a few percent of one another, and 16 KiB gains little over 4 KiB on values under 2 kB while
it costs zlib ~35 µs instead of ~10 µs per small value to load at each deflate.

${markdown(autoDictionary)}

## Hostile inputs (issue 9)

${markdown(hostile)}

## Cheap requests and invalidation messages (issue 24, items 7–10)

${markdown(serverCost)}

## Options per call and frozen values (issue 20, items 8 and 20)

${markdown(cacheMicro)}

## getMany with the in-process tier

With its in-process tier on (the default over Redis and IndexedDB), a Cache used to read \`getMany\`
key by key, each key a GET and a PTTL (the store's TTL bounds the local copy); since 2026-11-29 it
reads the keys the tier lacks in one call of \`Store.getManyWithTtl\` (Redis: MGET and a PTTL a
key in one pipeline; IndexedDB: one transaction), where the store has it.

${markdown(cacheGetMany)}

## Compression policy (how the defaults were chosen)

${markdown(policy)}

## fflate and the native streams in Chromium

${markdown(streams)}

## Cost of the CRC-32

${markdown(crc)}

## IndexedDB in Chromium (issues 5, 9 and 18)

${markdown(idb)}

## End to end through Redis (issue 4)

value → encode → SET → GET → decode, one pair after another, ioredis 6 on loopback, every method
writing the same Redis key; ops/s is pairs per second (median of three rounds with the method order
rotated), memory is Redis's \`MEMORY USAGE\` of the key. Keyv + @keyv/redis is configured as its
README shows (\`createKeyv(url)\`, JSON serializer).

${redis.targets}

${redis.tables}

### The seed article's tables, with Stowage added

Requests per second (SET then GET of W1-N) and Redis memory of the key:

${redis.seed}

### The seed article's benchmark itself: Fastify and autocannon (issue 25)

The article's own setup, not a loop of SET and GET: a Fastify server with \`@fastify/redis\`
(ioredis) whose POST handler returns W1-N, cached under one Redis key (the first request builds and
stores it, every later one reads Redis), driven by \`autocannon -m POST\` with 10 connections
from another process (apps/bench/src/article-bench.ts, article-server.ts). Variants: JSON; msgpackr
as the article used it (\`new Packr({ maxSharedStructures: 8160, structures: [] })\`, whose record
structures live in the server process); Stowage's \`encode\`/\`decode\` in the article's handler
(\`redis.set(key, encode(value))\`, \`decode(await redis.getBuffer(key))\`); the Cache with its
in-process tier off (every request reads Redis, like the handlers above); the Cache as its README
configures it (the in-process tier on); and, since 2026-11-28, a handler that returns the value it
built once, with no Redis and no cache (the ceiling of any in-process cache here). One server
process per variant, started together; the
runs go round the variants, 5 s each after a 1 s warm-up, and each variant keeps the better of two.
N = 1,000,000 answers ~80 MB of JSON per request: 10 requests (one per connection) with a 120 s
client timeout, once. Server, autocannon and Redis share this machine's 2 cores, with other work
running on them: read the ratios within one N, not the absolute figures. The GC share is the
server's main-thread GC pauses (\`PerformanceObserver\` 'gc') over the run's wall time.

${markdown(article)}

#### Where the read path spends and allocates at N = 10,000 (issue 25, item 3)

The same server and load, one timed run per profile: V8's CPU profiler (what \`--cpu-prof\` runs)
and then its sampling heap profiler with the objects both GCs collected kept (by default it keeps
only what is still alive), both over the load alone through the inspector
(apps/bench/src/article-profile.ts). Sites are functions (the line where each starts); \`(anonymous)\`
includes the row builders both codecs compile.

${markdown(articleProfile)}

The decode alone, in a loop that keeps the last 10 values reachable as the server keeps ~10
responses in flight (apps/bench/src/decode-gc.ts):

${markdown(decodeGc)}

${ARTICLE_FINDINGS}

### Bundles: one Redis hash per object (issue 4)

${markdown(bundles)}

## Cache façades (issue 10)

Stowage's Cache beside bentocache 1.6 (its defaults, and its memory tier with \`serialize: false\`),
cache-manager 7 (\`createCache()\`; with Redis, a Keyv memory store then \`createKeyv(url)\`) and
cacheable 2 (\`new Cacheable()\`; with Redis, \`secondary: createKeyv(url)\`), each as its README
shows, one process with ioredis loaded, a redis-server of its own. Stowage: \`createCache\` with
the in-process tier (its default in front of Redis). Ops/s are medians of three rounds with the
order rotated; a hit is a read of a key set before. Values: a real 1 kB webhook payload and W1-1000.
Cross-process stampede protection is a test, not a timing: packages/redis/test/lease.test.ts runs 4
real Node processes × 50 concurrent \`getOrSet\` of a cold key against one Redis and expects one
loader call (without the lease: 4). Tags, the OpenTelemetry wrapper and deleteByTag across
processes are tested (packages/core/test/cache-tags.test.ts, otel.node.test.ts,
packages/redis/test/invalidation.test.ts), not timed here.

${markdown(caches)}

## Framework adapters: Redis bytes (issue 26)

The bench's four real corpora written through Keyv 5.6 and unstorage 1.17 into a redis-server of
the run's own, each value under one key: with their own Redis adapters (@keyv/redis 5.1 with
Keyv's default serializer, the same with @keyv/compress-gzip 2.0, the same with a JSON → gzip →
base64 serializer; unstorage's \`redis\` driver) and with Stowage's (\`@stowage/keyv\` with Keyv's
serialization on, and through \`createKeyv\` with it off; \`@stowage/unstorage\`), both over
\`@stowage/redis\`. Bytes are Redis's \`MEMORY USAGE … SAMPLES 0\` summed over every key written
(key names and per-key overhead included; a large single value is counted in the allocator's size
classes, so the three one-value corpora are coarse). Keyv 5.6 hands @keyv/compress-gzip the value
itself, which pako refuses unless it is a string, and then writes the deflated bytes as a JSON
object of numbers (\`{"0":120,"1":156,…}\`): its column stores each value as its JSON text, the
only way that pairing stores anything, and shows the cost. Keyv's default serializer fails on
browser-compat-data (an object with a \`toJSON\` key that is not a function), so the totals leave
that corpus out. \`pnpm --filter @stowage/bench bench:adapters\` runs this section alone.

${markdown(adapters)}

### Next.js: revalidateTag against the number of cached keys (issue 26)

${markdown(nextTags)}

### Next.js: Redis bytes per cached page and serving, against @fortedigital/nextjs-cache-handler (issue 26)

The app is apps/bench/next-pages (\`next build\` once; the handler is picked when \`next start\`
loads it). @fortedigital/nextjs-cache-handler 3.3 as its README's Quick Start sets it up (its
redis-strings handler, node-redis 5), and with the gzip \`valueSerializer\` its README gives; both
instances with \`cacheMaxMemorySize: 0\`, as issue 26 sets the peers. \`pnpm --filter @stowage/bench
bench:next-pages\` runs this section alone.

${markdown(nextPages)}

## Memory store accounting (issue 12)

The memory store counts each entry as its value, its key and \`MEMORY_ENTRY_OVERHEAD\` (600 B, half
of it per bundle field); its \`maxBytes\` is only a budget if that count is close to the memory
really taken.

${markdown(memoryStore)}

## Codec table, no Redis client loaded

${table(clean)}

## App state persisted (issues 11 and 18)

${markdown(persistState)}

${markdown(persistFirefox)}

### Where the main thread's time goes in the persister after a reload

${markdown(persistProfile)}

## Codec v4: the text table (issue 18)

${CODEC_V4}

${codecV4Table(result<BrowserCodec>(browserCodec))}

## Decode and encode in the browser (issue 18)

${markdown(browserCodec)}

## Large string tables in Chromium (issue 18)

${markdown(browserText)}

${LARGE_TABLES}

## Cache reads that keep the value frozen, in the browser (issue 18)

A Cache's in-process tier (on by default over any store but the memory one) keeps each value it
reads deep-frozen, so that every reader shares one object nobody can change. It used to decode the
value and then walk it to freeze it; since 2026-11-29 it asks the decoder for the value built
frozen (\`codec.decode(bytes, { freeze: true })\`), each array and object frozen as it is made, unless a
schema or \`migrate\` gets the value first (they may change it).

${markdown(browserFreeze)}

## Reads after a reload (issue 18)

${markdown(reload)}

### TanStack's per-query persister after a reload

${markdown(queryPersister)}

In Firefox (Firefox rounds \`performance.now()\` to whole milliseconds):

${markdown(queryPersisterFirefox)}

## fetchCached on a first screen (issue 18)

${markdown(fetches)}

In Firefox (Firefox rounds \`performance.now()\` to whole milliseconds):

${markdown(fetchesFirefox)}

### Where the main thread's time goes on a first screen

${markdown(fetchProfile)}

## The CRC-32 on a first screen (issue 18)

${markdown(crcCold)}

${CRC_COLD}

## When a shape is compiled (issue 18)

${SHAPE_COMPILE}

## Messages to the compression worker (issue 18)

${WORKER_MESSAGES}
`
writeFileSync(join(here, '..', 'RESULTS.md'), results)
// The raw figures behind RESULTS.md, for anyone who wants other ratios.
writeFileSync(
  join(here, '..', 'results.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, codec: { clean, loaded }, redis: redisPass, article: result(article), browser, browserCodec: result(browserCodec), reload: result(reload), fetch: [...result<Browser>(fetches), ...result<Browser>(fetchesFirefox)], persist: [...result<Browser>(persistState), ...result<Browser>(persistFirefox)], hostile: hostileRows, serverCost: result(serverCost), cacheMicro: result(cacheMicro), dictionary: result(dictionary), dictionaryRedis: result(dictionaryRedis), adapters: result(adapters), nextTags: result(nextTags), nextPages: result(nextPages) }, null, 1)}\n`,
)
console.log(targets.table)
console.log('\nwrote apps/bench/RESULTS.md')
