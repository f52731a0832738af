// App state persisted in IndexedDB (issues 11, 18 and 20): a TanStack Query client of 5,000 queries
// of real data saved and restored in real Chromium by TanStack's createAsyncStoragePersister over
// idb-keyval (its default JSON serializer), by the structured-clone idb-keyval persister of
// TanStack's docs, and by @stowage/persist's whole-client persister over @stowage/idb.
//
// Modes (`--mode page`, `--mode reload`, both by default; `--mode firefox`, `--mode page-reload`):
// - in one page: save, then restore into a new client over a new connection;
// - the same in one page of Firefox (firefox-esr over WebDriver BiDi, as tools/browsers/vitest-firefox.ts);
// - after a real reload: save in a browser over a persistent profile, close it, measure the
//   profile's IndexedDB folder, then restore in a new browser over the same profile (cold JIT,
//   data read from disk);
// - after a page reload (in `reload` mode too): save in a page, reload it, restore in it (the
//   browser and its IndexedDB backend keep running, the page's JIT starts cold).
// Two data sets: the 329 GitHub webhook payloads (0.9–27 kB), and small queries of real data: the
// distinct `repository`, `sender`, `issue` and `pull_request` objects of those payloads of 2–10 kB
// of JSON. Both cycled to 5,000 queries. Bundles browser/persist-page.ts, prints Markdown and a
// RESULT line.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright'
import puppeteer from 'puppeteer-core'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'
import type { PersistMethod, RestoreSample, SaveSample } from './browser/persist-page.js'
import { folderBytes } from './folder-bytes.js'
import { serveBundle } from './browser-page.js'
import { appStateSets } from './real-data.js'

const QUERIES = Number(process.env.PERSIST_QUERIES ?? 5000)
// PERSIST_SETTLE_MS: after a reload, the restore starts this long after the page has loaded (0 by
// default: at once, as an app restores on its first screen). Tells how much of a restore's time
// is the browser's own start-up running beside it.
const SETTLE_MS = Number(process.env.PERSIST_SETTLE_MS ?? 0)
const settled = SETTLE_MS > 0 ? `, the restore ${SETTLE_MS} ms after the page loaded` : ''
const ROUNDS = Number(process.env.PERSIST_ROUNDS ?? 5) // after one warm-up round per method
const mode = process.argv.includes('--mode') ? process.argv[process.argv.indexOf('--mode') + 1] : 'both'
const allMethods: Array<[PersistMethod, string]> = [
  ['json', 'createAsyncStoragePersister + idb-keyval (JSON)'],
  ['clone', 'idb-keyval structured clone (TanStack docs)'],
  ['stowage', '@stowage/persist client persister'],
  ['stowage-plain', "@stowage/persist client persister, `compress: 'never'`"],
]
// PERSIST_METHODS=json,clone,stowage,stowage-plain picks others (the targets need the first three).
const picked = (process.env.PERSIST_METHODS ?? 'json,clone,stowage').split(',')
const methods = allMethods.filter(([m]) => picked.includes(m))

const dataSets = appStateSets().filter((_, i) => (process.env.PERSIST_SETS ?? '0,1').split(',').includes(String(i)))
const jsonMb = (values: unknown[]) => {
  let n = 0
  for (let i = 0; i < QUERIES; i++) n += JSON.stringify(values[i % values.length]).length
  return `${(n / 1e6).toFixed(1)} MB`
}

interface Sample {
  save: SaveSample
  restore: RestoreSample
  diskBytes?: number
}

// One server on one port for the whole run: the origin (and so the IndexedDB folder) must be the
// same across the two browsers of a reload.
const { server, url } = await serveBundle('persist-page.ts')

async function openPage(context: BrowserContext): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage())
  await page.goto(url)
  await page.waitForFunction(() => typeof window.runPersistRestore === 'function')
  return page
}

/** What the in-page runs need of a page: Playwright's and Puppeteer's pages both have it. */
interface Evaluating {
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>
}

/** One method's save and restore within one page. */
async function inPage(page: Evaluating, values: unknown[], method: PersistMethod, round: number): Promise<Sample> {
  const dbName = `persist-bench-${method}-${round}-${Math.random().toString(36).slice(2)}`
  await page.evaluate((name) => window.deletePersistDb(name), dbName)
  const save = await page.evaluate(([v, q, m, name]) => window.runPersistSave(v, q, m, name), [values, QUERIES, method, dbName] as const)
  await new Promise((r) => setTimeout(r, 300))
  const restore = await page.evaluate(([m, name]) => window.runPersistRestore(m, name), [method, dbName] as const)
  await page.evaluate((name) => window.deletePersistDb(name), dbName)
  return { save, restore }
}

/** One method's save in one browser and restore in another over the same profile. */
async function afterReload(values: unknown[], method: PersistMethod): Promise<Sample> {
  const profile = mkdtempSync(join(tmpdir(), 'persist-bench-'))
  try {
    const launch = () => chromium.launchPersistentContext(profile, { ...chromiumLaunchOptions, headless: true })
    let context = await launch()
    const save = await (await openPage(context)).evaluate(([v, q, m]) => window.runPersistSave(v, q, m, 'reload'), [values, QUERIES, method] as const)
    await context.close()
    const diskBytes = folderBytes(join(profile, 'Default', 'IndexedDB'))
    context = await launch()
    const page = await openPage(context)
    if (SETTLE_MS > 0) await page.waitForTimeout(SETTLE_MS)
    const restore = await page.evaluate((m) => window.runPersistRestore(m, 'reload'), method)
    await context.close()
    return { save, restore, diskBytes }
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

/**
 * One method's save and, after the page reloads, its restore: the same browser over an on-disk
 * profile, as when a user reloads the tab (the browser and its IndexedDB backend keep running).
 */
async function afterPageReload(values: unknown[], method: PersistMethod): Promise<Sample> {
  const profile = mkdtempSync(join(tmpdir(), 'persist-bench-'))
  try {
    const context = await chromium.launchPersistentContext(profile, { ...chromiumLaunchOptions, headless: true })
    try {
      const page = await openPage(context)
      const save = await page.evaluate(([v, q, m]) => window.runPersistSave(v, q, m, 'reload'), [values, QUERIES, method] as const)
      await page.reload()
      await page.waitForFunction(() => typeof window.runPersistRestore === 'function')
      if (SETTLE_MS > 0) await page.waitForTimeout(SETTLE_MS)
      const restore = await page.evaluate((m) => window.runPersistRestore(m, 'reload'), method)
      return { save, restore }
    } finally {
      await context.close()
    }
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const check = (ok: boolean) => (ok ? 'met' : '**missed**')
const mb = (n: number | undefined) => (n === undefined ? '—' : `${(n / 1e6).toFixed(1)} MB`)
const ms = (n: number) => `${n.toFixed(0)} ms`
const x = (n: number) => `${n.toFixed(2)}×`

const lines: string[] = []
const results: Array<[string, number, boolean]> = []

async function section(label: string, values: unknown[], run: (method: PersistMethod, round: number) => Promise<Sample>): Promise<void> {
  const samples = new Map<PersistMethod, Sample[]>(methods.map(([m]) => [m, []]))
  for (let round = -1; round < ROUNDS; round++) {
    // The order rotates each round, so that no method always runs on a warmer or fuller heap.
    const order = methods.map((_, i) => methods[(i + Math.max(round, 0)) % methods.length]![0])
    for (const method of order) {
      process.stderr.write(`persist-bench: ${label} ${method} round ${round}\n`)
      const sample = await run(method, round)
      if (sample.restore.restoredQueries !== QUERIES) throw new Error(`${method} restored ${sample.restore.restoredQueries} of ${QUERIES} queries`)
      if (round >= 0) samples.get(method)!.push(sample)
    }
  }
  const med = (m: PersistMethod, f: (s: Sample) => number | undefined) => {
    const xs = samples.get(m)!.map(f)
    return xs.some((v) => v === undefined) ? undefined : median(xs as number[])
  }
  const worst = (m: PersistMethod, f: (s: Sample) => number) => Math.max(...samples.get(m)!.map(f))
  // As persistQueryClientRestore / persistQueryClientSave: the persister's part and TanStack's.
  const restore = (m: PersistMethod) => med(m, (s) => s.restore.ms + s.restore.hydrateMs)!
  const save = (m: PersistMethod) => med(m, (s) => s.save.ms + s.save.dehydrateMs)!
  const valueBytes = (m: PersistMethod) => med(m, (s) => s.save.bytes)
  const disk = (m: PersistMethod) => med(m, (s) => s.diskBytes)
  lines.push(`### ${label}`, '')
  if (['json', 'clone', 'stowage'].every((m) => samples.has(m as PersistMethod))) {
    const worstSave = worst('stowage', (s) => s.save.longestTaskMs)
    const worstRestore = worst('stowage', (s) => s.restore.longestTaskMs)
    const target = (name: string, ratio: number, ok: boolean, measured: string) => {
      results.push([`${label}: ${name}`, ratio, ok])
      lines.push(`| ${name} | ${measured} | ${check(ok)} |`)
    }
    lines.push('| target | measured | |', '|---|---|---|')
    target('restore ≤ 1.0× the structured-clone persister', restore('stowage') / restore('clone'), restore('stowage') <= restore('clone'), `${x(restore('stowage') / restore('clone'))} (${ms(restore('stowage'))} vs ${ms(restore('clone'))})`)
    if (label.startsWith('Firefox')) target('restore ≤ 1.0× the JSON persister (Firefox)', restore('stowage') / restore('json'), restore('stowage') <= restore('json'), `${x(restore('stowage') / restore('json'))} (${ms(restore('stowage'))} vs ${ms(restore('json'))})`)
    target('save ≤ 1.0× the JSON persister', save('stowage') / save('json'), save('stowage') <= save('json'), `${x(save('stowage') / save('json'))} (${ms(save('stowage'))} vs ${ms(save('json'))})`)
    target("longest task while the persister saves ≤ 50 ms (worst round; TanStack's dehydrate apart)", worstSave, worstSave <= 50, ms(worstSave))
    target("longest task while the persister restores ≤ 50 ms (worst round; TanStack's hydrate apart)", worstRestore, worstRestore <= 50, ms(worstRestore))
    const vb = valueBytes('stowage')! / valueBytes('json')!
    target('value bytes ≤ 0.25× the JSON persister', vb, vb <= 0.25, `${x(vb)} (${mb(valueBytes('stowage'))} vs ${mb(valueBytes('json'))})`)
    if (disk('json') !== undefined) {
      const db = disk('stowage')! / disk('json')!
      target('bytes on disk ≤ 0.7× the JSON persister', db, db <= 0.7, `${x(db)} (${mb(disk('stowage'))} vs ${mb(disk('json'))})`)
    }
    lines.push('')
  }
  lines.push(
    '| persister | value bytes | on disk | save: dehydrate + persistClient | longest task in persistClient (median / worst) | restore: restoreClient + hydrate | longest task in restoreClient (median / worst) |',
    '|---|---|---|---|---|---|---|',
  )
  for (const [m, name] of methods) {
    const saveTask = `${ms(med(m, (s) => s.save.longestTaskMs)!)} / ${ms(worst(m, (s) => s.save.longestTaskMs))}`
    const restoreTask = `${ms(med(m, (s) => s.restore.longestTaskMs)!)} / ${ms(worst(m, (s) => s.restore.longestTaskMs))}`
    const saveParts = `${ms(save(m))} = ${ms(med(m, (s) => s.save.dehydrateMs)!)} + ${ms(med(m, (s) => s.save.ms)!)}`
    const restoreParts = `${ms(restore(m))} = ${ms(med(m, (s) => s.restore.ms)!)} + ${ms(med(m, (s) => s.restore.hydrateMs)!)}`
    lines.push(`| ${name} | ${m === 'clone' ? '— (V8 serialization, not visible to the page)' : mb(valueBytes(m))} | ${mb(disk(m))} | ${saveParts} | ${saveTask} | ${restoreParts} | ${restoreTask} |`)
  }
  lines.push('')
}

let version = ''
try {
  if (mode === 'page' || mode === 'both') {
    const browser = await chromium.launch(chromiumLaunchOptions)
    version = browser.version()
    const page = await openPage(await browser.newContext())
    for (const { name, values } of dataSets) await section(`In one page, ${name}`, values, (m, r) => inPage(page, values, m, r))
    await browser.close()
  }
  if (mode === 'firefox') {
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr', // as tools/browsers/vitest-firefox.ts
      headless: true,
      extraPrefsFirefox: { 'network.captive-portal-service.enabled': false, 'network.connectivity-service.enabled': false },
    })
    version = await browser.version()
    const page = await browser.newPage()
    await page.goto(url)
    await page.waitForFunction(() => typeof window.runPersistRestore === 'function')
    for (const { name, values } of dataSets) await section(`Firefox, in one page, ${name}`, values, (m, r) => inPage(page as unknown as Evaluating, values, m, r))
    await browser.close()
  }
  if (mode === 'reload' || mode === 'both') {
    for (const { name, values } of dataSets) await section(`After a real reload, ${name}${settled}`, values, (m) => afterReload(values, m))
  }
  if (mode === 'reload' || mode === 'both' || mode === 'page-reload') {
    for (const { name, values } of dataSets) await section(`After a page reload, ${name}${settled}`, values, (m) => afterPageReload(values, m))
  }
} finally {
  server.close()
}

console.log(
  [
    `${mode === 'firefox' ? version : `Chromium ${version || '(persistent profiles)'}`} (headless, Debian build). ${QUERIES.toLocaleString('en')} queries per data set (${dataSets.map((d) => `${d.name}: ${jsonMb(d.values)} as JSON`).join('; ')}), each query its own copy, saved and restored as \`persistQueryClientSave\` and \`persistQueryClientRestore\` do, in two timed steps each: TanStack's \`dehydrate\` then the persister's \`persistClient\`; the persister's \`restoreClient\` (opening the database included) then TanStack's \`hydrate\` into a new QueryClient (TanStack's steps are one synchronous task each, the same work for every persister); medians of ${ROUNDS} rounds after a warm-up round, the order of the methods rotated each round. "After a real reload": the save runs in a browser over a persistent profile, which is then closed; "on disk" is the size of the profile's IndexedDB folder at that point; the restore runs in a new browser over the same profile. "After a page reload": the save runs in a page of a browser over a persistent profile, the page reloads, and the restore runs in it (the same browser, its IndexedDB backend still running, as when a user reloads a tab). Value bytes: what IndexedDB was given (the JSON string's UTF-8 length; the sum of the records Stowage stored: its segments and manifest). Longest task: the longer of the longest \`longtask\` entry and the longest gap between turns of a MessageChannel heartbeat, while \`persistClient\` (or \`restoreClient\`) runs. The machine (2 cores) was shared with other work while measuring: compare ratios within a run.`,
    '',
    ...lines,
    'A save of an unchanged client writes only the manifest; a `setQueryData` rewrites the one segment that holds the query, and the manifest (packages/persist/test/client-persister.test.ts).',
  ].join('\n'),
)
console.log(`RESULT ${JSON.stringify(results)}`)
