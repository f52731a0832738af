// Where the main thread spends Stowage's client persister after a reload (issue 18), beside the
// timings of persist-bench.ts: a page's first save of 5,000 queries (the encoder cold, as after a
// reload), then the restore in a browser started anew over the same on-disk profile, each call
// under V8's sampling profiler (100 µs). The same two data sets as persist-bench.ts. Splits the
// main thread's busy time as fetch-profile.ts does and names the functions of the bundle that
// took the most, with what they called. Prints Markdown.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveBundle, withPersistentPage } from './browser-page.js'
import { meanOf, profiled, splitProfile, topFunctions, type ProfileSplit } from './page-profile.js'
import { smallQueries, webhookPayloads } from './real-data.js'

const ROUNDS = Number(process.argv[2] ?? 3)
const QUERIES = 5000
const dataSets = [
  { name: 'webhook payloads', values: webhookPayloads() },
  { name: 'small queries', values: smallQueries() },
]
// Not minified: the profile names the functions.
const { server, url } = await serveBundle('persist-profile-page.ts', { minify: false })

const splits = new Map<string, ProfileSplit[]>()
const keep = (key: string, split: ProfileSplit) => splits.set(key, [...(splits.get(key) ?? []), split])
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, values } of dataSets) {
      process.stderr.write(`persist-profile: ${name} round ${round}\n`)
      const profileDir = mkdtempSync(join(tmpdir(), 'stowage-persist-profile-'))
      try {
        const save = await withPersistentPage(profileDir, url, 'restore', async (page) => {
          await page.evaluate(([v, q]) => window.prepareSave(v, q), [values, QUERIES] as const)
          return profiled(page, () => page.evaluate(() => window.save()), 100)
        })
        keep(`${name} save`, splitProfile(save.profile, '/page.js').set('wall', save.result.ms))
        const restore = await withPersistentPage(profileDir, url, 'restore', (page) => profiled(page, () => page.evaluate(() => window.restore()), 100))
        if (restore.result.queries !== QUERIES) throw new Error(`restored ${restore.result.queries} queries of ${QUERIES}`)
        keep(`${name} restore`, splitProfile(restore.profile, '/page.js').set('wall', restore.result.ms))
      } finally {
        rmSync(profileDir, { recursive: true, force: true })
      }
    }
  }
} finally {
  server.close()
}

const lines = [
  `Chromium, ${QUERIES.toLocaleString('en')} queries, Stowage's client persister: a page's first save (the database already open, the encoder cold), then the restore in a browser started anew over the same on-disk profile (opening the database included). V8's sampling profiler (every 100 µs) on for each call; means of ${ROUNDS} rounds. "JavaScript of the bundle": the page's own script (Stowage, idb, TanStack Query); "V8": what the profiler calls (program), V8's parser, compilers and runtime outside any function. The profiler slows the page: persist-bench.ts has the timings.`,
  '',
  '| data | call | wall ms | main thread busy ms | JavaScript of the bundle | native functions | V8 (program) | GC |',
  '|---|---|---|---|---|---|---|---|',
]
for (const [key, runs] of splits) {
  const [data, call] = [key.slice(0, key.lastIndexOf(' ')), key.slice(key.lastIndexOf(' ') + 1)]
  lines.push(`| ${data} | ${call} | ${['wall', 'busy', 'bundle', 'native', 'v8', 'gc'].map((p) => meanOf(runs, p).toFixed(0)).join(' | ')} |`)
}
for (const [key, runs] of splits) lines.push('', `${key}: with what they called, ${topFunctions(runs, 'total', 14)}; their own time, ${topFunctions(runs, 'self', 8)} (ms).`)
console.log(lines.join('\n'))
