// App state persisted in IndexedDB (issue 11): a TanStack Query client of 5,000 queries of real
// data (the 329 GitHub webhook payloads, cycled) saved and restored in real Chromium by TanStack's
// createAsyncStoragePersister over idb-keyval (its default JSON serializer, the baseline),
// by the structured-clone idb-keyval persister of TanStack's docs, and by @stowage/persist's
// whole-client persister over @stowage/idb. Bundles browser/persist-page.ts, prints Markdown and a
// RESULT line.
import { openBenchPage } from './browser-page.js'
import type { PersistMethod, PersistSample } from './browser/persist-page.js'
import { webhookPayloads } from './real-data.js'

const QUERIES = 5000
const ROUNDS = 5 // after one warm-up round per method
const methods: Array<[PersistMethod, string]> = [
  ['json', 'createAsyncStoragePersister + idb-keyval (JSON)'],
  ['clone', 'idb-keyval structured clone (TanStack docs)'],
  ['stowage', '@stowage/persist client persister'],
  ['stowage-plain', "@stowage/persist client persister, `compress: 'never'`"],
]

const { page, version, close } = await openBenchPage('persist-page.ts', 'runPersistBench')
const payloads = webhookPayloads()
const samples = new Map<PersistMethod, PersistSample[]>(methods.map(([m]) => [m, []]))
try {
  for (let round = -1; round < ROUNDS; round++) {
    // The order rotates each round, so that no method always runs on a warmer or fuller heap.
    const order = methods.map((_, i) => methods[(i + Math.max(round, 0)) % methods.length]![0])
    for (const method of order) {
      process.stderr.write(`persist-bench: ${method} round ${round}\n`)
      const sample = (await page.evaluate(([p, q, m, r]) => window.runPersistBench(p, q, m, r), [payloads, QUERIES, method, round] as const)) as PersistSample
      if (sample.restoredQueries !== QUERIES) throw new Error(`${method} restored ${sample.restoredQueries} of ${QUERIES} queries`)
      if (round >= 0) samples.get(method)!.push(sample)
    }
  }
} finally {
  await close()
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const med = (m: PersistMethod, f: keyof PersistSample) => median(samples.get(m)!.map((s) => s[f] as number))
const longest = (m: PersistMethod) => median(samples.get(m)!.map((s) => Math.max(s.longTaskMs, s.longestGapMs)))
const worst = (m: PersistMethod) => Math.max(...samples.get(m)!.map((s) => Math.max(s.longTaskMs, s.longestGapMs)))
const check = (ok: boolean) => (ok ? 'met' : '**missed**')
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
const ms = (n: number) => `${n.toFixed(0)} ms`

const jsonBytes = med('json', 'bytes')
const stowageBytes = med('stowage', 'bytes')
const restoreRatio = med('stowage', 'restoreMs') / med('json', 'restoreMs')
const bytesRatio = stowageBytes / jsonBytes
const targets: Array<[string, number, boolean]> = [
  ['restore ≤ 0.5× the idb-keyval JSON persister', restoreRatio, restoreRatio <= 0.5],
  ['stored bytes ≤ 0.3× the idb-keyval JSON persister', bytesRatio, bytesRatio <= 0.3],
  ['no main-thread task > 50 ms while persisting (ms, worst round)', worst('stowage'), worst('stowage') <= 50],
]
const lines = [
  `Chromium ${version} (headless, Debian build), one page. ${QUERIES.toLocaleString('en')} queries, each a copy of one of the 329 GitHub webhook payloads (cycled; ${mb(jsonBytes)} as JSON), saved with \`persistQueryClientSave\` and restored with \`persistQueryClientRestore\` into a new QueryClient over a new connection; medians of ${ROUNDS} rounds after a warm-up round, the order of the methods rotated each round. Bytes: what IndexedDB was given (the JSON string's UTF-8 length; the sum of the envelopes and the index). Longest task: the longer of the longest \`longtask\` entry and the longest gap between turns of a MessageChannel heartbeat, from the start of the save until it is written.`,
  '',
  '| target | measured | |',
  '|---|---|---|',
  `| ${targets[0]![0]} | ${restoreRatio.toFixed(2)}× (${ms(med('stowage', 'restoreMs'))} vs ${ms(med('json', 'restoreMs'))}) | ${check(targets[0]![2])} |`,
  `| ${targets[1]![0]} | ${bytesRatio.toFixed(2)}× (${mb(stowageBytes)} vs ${mb(jsonBytes)}) | ${check(targets[1]![2])} |`,
  `| no main-thread task > 50 ms while persisting | longest ${ms(worst('stowage'))} over ${ROUNDS} rounds, median ${ms(longest('stowage'))} (the JSON persister: ${ms(longest('json'))}) | ${check(targets[2]![2])} |`,
  '',
  '| persister | stored | save | longest task while saving | restore |',
  '|---|---|---|---|---|',
  ...methods.map(([m, name]) => `| ${name} | ${m === 'clone' ? '— (a structured clone; not measurable in the page)' : mb(med(m, 'bytes'))} | ${ms(med(m, 'saveMs'))} | ${ms(longest(m))} | ${ms(med(m, 'restoreMs'))} |`),
  '',
  'The second save of an unchanged client writes only the index; a `setQueryData` writes that query and the index (packages/persist/test/client-persister.test.ts).',
]
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(targets)}`)
