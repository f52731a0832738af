// Where the main thread spends Stowage's client persister after a reload (issue 18), beside the
// timings of persist-bench.ts: a page's first save of 5,000 queries (the encoder cold, as after a
// reload), then the restore in a browser started anew over the same on-disk profile, each call
// under V8's sampling profiler (100 µs). The same two data sets as persist-bench.ts. Splits the
// main thread's busy time as fetch-profile.ts does and names the functions of the bundle that
// took the most, with what they called. Prints Markdown.
import { build } from 'esbuild'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'
import { meanOf, profiled, splitProfile, topFunctions, type ProfileSplit } from './page-profile.js'
import { smallQueries, webhookPayloads } from './real-data.js'

const ROUNDS = Number(process.argv[2] ?? 3)
const QUERIES = 5000
const dataSets = [
  { name: 'webhook payloads', values: webhookPayloads() },
  { name: 'small queries', values: smallQueries() },
]
const entry = join(dirname(fileURLToPath(import.meta.url)), 'browser', 'persist-profile-page.ts')
// Not minified: the profile names the functions.
const bundle = (await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022' })).outputFiles[0]!.text
const server = createServer((req, res) => {
  if (req.url === '/page.js') return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle)
  res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><script type="module" src="/page.js"></script>')
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`

async function openPage(context: BrowserContext): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage())
  await page.goto(origin)
  await page.waitForFunction(() => typeof window.restore === 'function')
  return page
}

const splits = new Map<string, ProfileSplit[]>()
const keep = (key: string, split: ProfileSplit) => splits.set(key, [...(splits.get(key) ?? []), split])
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, values } of dataSets) {
      process.stderr.write(`persist-profile: ${name} round ${round}\n`)
      const profileDir = mkdtempSync(join(tmpdir(), 'stowage-persist-profile-'))
      try {
        let context = await chromium.launchPersistentContext(profileDir, chromiumLaunchOptions)
        let page = await openPage(context)
        await page.evaluate(([v, q]) => window.prepareSave(v, q), [values, QUERIES] as const)
        const save = await profiled(page, () => page.evaluate(() => window.save()), 100)
        await context.close()
        keep(`${name} save`, splitProfile(save.profile, '/page.js').set('wall', save.result.ms))
        context = await chromium.launchPersistentContext(profileDir, chromiumLaunchOptions)
        try {
          page = await openPage(context)
          const restore = await profiled(page, () => page.evaluate(() => window.restore()), 100)
          if (restore.result.queries !== QUERIES) throw new Error(`restored ${restore.result.queries} queries of ${QUERIES}`)
          keep(`${name} restore`, splitProfile(restore.profile, '/page.js').set('wall', restore.result.ms))
        } finally {
          await context.close()
        }
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
