// TanStack Query's per-query persister after a real reload (issue 18): 5,000 queries, each its own
// IndexedDB entry, saved in a browser over an on-disk profile; the browser is closed, a new one is
// started over the same profile, and its page asks for every query at once (a first screen
// mounting), each restored from its entry when first fetched. TanStack's
// `experimental_createQueryPersister` over idb-keyval as its docs build it (structured clone; the
// default JSON serializer) against @stowage/persist's `createStowageQueryPersister` over
// @stowage/idb. Bundles browser/query-persister-page.ts, prints Markdown and a RESULT line.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { QueryPersisterMethod, QueryPersisterSample } from './browser/query-persister-page.js'
import { folderBytes } from './folder-bytes.js'
import { serveBundle, withPersistentFirefoxPage, withPersistentPage } from './browser-page.js'
import { appStateSets } from './real-data.js'

const QUERIES = Number(process.env.QP_QUERIES ?? 5000)
// `--browser firefox`: Debian's firefox-esr instead of Chromium.
const firefox = process.argv.includes('--browser') && process.argv[process.argv.indexOf('--browser') + 1] === 'firefox'
const ROUNDS = Number(process.env.QP_ROUNDS ?? 5)
const allMethods: Array<[QueryPersisterMethod, string]> = [
  ['clone', 'idb-keyval structured clone (TanStack docs)'],
  ['json', 'idb-keyval, the default JSON serializer'],
  ['stowage', '@stowage/persist createStowageQueryPersister'],
  ['stowage-deflated', '@stowage/persist createStowageQueryPersister, entries deflated from 1 KiB'],
]
// QP_METHODS=stowage,clone: a probe of some methods only (the table's ratios need clone, json and stowage).
const methods = allMethods.filter(([m]) => (process.env.QP_METHODS ?? m).split(',').includes(m))
const dataSets = appStateSets().filter((_, i) => (process.env.QP_SETS ?? '0,1').split(',').includes(String(i)))

const { server, url } = await serveBundle('query-persister-page.ts')
const samples = new Map<string, { save: QueryPersisterSample[]; restore: QueryPersisterSample[]; disk: number[] }>()

// The profile's IndexedDB folder (Chromium keeps it under Default/IndexedDB; Firefox, the origin's storage under storage/).
const idbBytes = (profile: string) => folderBytes(firefox ? join(profile, 'storage') : join(profile, 'Default', 'IndexedDB'))
// Runs `fn(arg)` in a page of a browser started over `profile`, closed after.
async function inBrowser<A, R>(profile: string, fn: (arg: A) => Promise<R>, arg: A): Promise<R> {
  if (firefox)
    return withPersistentFirefoxPage(profile, url, 'runQueryPersisterRestore', async (page) => {
      version = page.version.replace('firefox/', 'Firefox ESR ')
      return page.evaluate(fn, arg)
    })
  return withPersistentPage(profile, url, 'runQueryPersisterRestore', async (page) => {
    version = `Chromium ${page.context().browser()?.version() ?? 'unknown'}`
    return page.evaluate(fn as never, arg as never) as Promise<R>
  })
}
let version = ''
try {
  for (const [set, { values }] of dataSets.entries()) {
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < methods.length; i++) {
        const [method] = methods[(i + round) % methods.length]!
        const dbName = `qp-${set}-${round}-${method}`
        process.stderr.write(`query-persister-bench: set ${set} ${method} round ${round}\n`)
        // A profile of its own: its IndexedDB folder holds this method's entries alone.
        const profile = mkdtempSync(join(tmpdir(), 'stowage-query-persister-'))
        const save = await inBrowser(profile, ([v, n, m, d]) => window.runQueryPersisterSave(v, n, m, d), [values, QUERIES, method, dbName] as const)
        const disk = idbBytes(profile)
        const restore = await inBrowser(profile, ([n, m, d]) => window.runQueryPersisterRestore(n, m, d), [QUERIES, method, dbName] as const)
        rmSync(profile, { recursive: true, force: true })
        if (save.queries !== QUERIES || restore.queries !== QUERIES) throw new Error(`${method}: ${save.queries} saved, ${restore.queries} restored of ${QUERIES}`)
        const cell = samples.get(`${set} ${method}`) ?? { save: [], restore: [], disk: [] }
        cell.disk.push(disk)
        cell.save.push(save)
        cell.restore.push(restore)
        process.stderr.write(`  save ${save.ms.toFixed(0)} ms (burst ${save.burstMs.toFixed(0)} / ${save.burstTaskMs.toFixed(0)}, longest after ${save.longestTaskMs.toFixed(0)}); restore ${restore.ms.toFixed(0)} ms (burst ${restore.burstMs.toFixed(0)} / ${restore.burstTaskMs.toFixed(0)}, longest after ${restore.longestTaskMs.toFixed(0)})\n`)
        samples.set(`${set} ${method}`, cell)
      }
    }
  }
} finally {
  server.close()
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const lines = [
  `${version} (headless, Debian build), a profile on disk. ${QUERIES.toLocaleString('en')} queries (the data cycled), each persisted in an entry of its own by the per-query persister; every sample saves in a browser, closes it, and restores in a new browser over the same profile, its page asking for every query at once (\`fetchQuery\` of each in one task, as a first screen mounting its components), each restored from its entry when first fetched. Save: from the first fetch to the last entry written. Longest task: the longest after the page's one task of ${QUERIES.toLocaleString('en')} \`fetchQuery\` calls, which is timed on its own (\"burst\": its synchronous part, TanStack's work and what a persister does at once in it; and its whole task, with the promise callbacks run at its end). On disk: the profile's IndexedDB folder after the save (a profile per sample). Medians of ${ROUNDS} samples, the method order rotated; ratios against the structured clone.`,
]
const targets: Array<[string, number, boolean]> = []
for (const [set, { name }] of dataSets.entries()) {
  const med = (m: QueryPersisterMethod, what: 'save' | 'restore', field: 'ms' | 'longestTaskMs') => median(samples.get(`${set} ${m}`)![what].map((s) => s[field]))
  const worst = (m: QueryPersisterMethod, what: 'save' | 'restore') => Math.max(...samples.get(`${set} ${m}`)![what].map((s) => s.longestTaskMs))
  lines.push('', `#### ${name}`, '', '| persister | on disk | ×JSON | save ms | ×clone | ×JSON | longest task while saving (median / worst) | restore ms | ×clone | ×JSON | longest task while restoring (median / worst) | burst ms, synchronous part / whole task: save; restore |', '|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const [m, label] of methods) {
    const cells = (['save', 'restore'] as const).map((w) => `${med(m, w, 'ms').toFixed(1)} | ${(med(m, w, 'ms') / med('clone', w, 'ms')).toFixed(2)} | ${(med(m, w, 'ms') / med('json', w, 'ms')).toFixed(2)} | ${med(m, w, 'longestTaskMs').toFixed(1)} / ${worst(m, w).toFixed(1)}`)
    const disk = (x: QueryPersisterMethod) => median(samples.get(`${set} ${x}`)!.disk)
    const burst = (w: 'save' | 'restore') => ['burstMs', 'burstTaskMs'].map((f) => median(samples.get(`${set} ${m}`)![w].map((x) => x[f as 'burstMs' | 'burstTaskMs'])).toFixed(1)).join(' / ')
    lines.push(`| ${label} | ${(disk(m) / 1e6).toFixed(1)} MB | ${(disk(m) / disk('json')).toFixed(2)} | ${cells.join(' | ')} | ${burst('save')}; ${burst('restore')} |`)
  }
  // The restore's target: the structured clone in Chromium, the JSON persister in Firefox (issue 18).
  const base = firefox ? 'json' : 'clone'
  const restore = med('stowage', 'restore', 'ms') / med(base, 'restore', 'ms')
  const save = med('stowage', 'save', 'ms') / med('json', 'save', 'ms')
  targets.push([`${firefox ? 'Firefox, ' : ''}per-query persister after a real reload, ${name}: restore ≤ 1.0× the ${firefox ? 'JSON' : 'structured-clone'} persister`, restore, restore <= 1])
  targets.push([`${firefox ? 'Firefox, ' : ''}per-query persister after a real reload, ${name}: save ≤ 1.0× the JSON persister`, save, save <= 1])
  for (const w of ['save', 'restore'] as const) {
    const worstTask = worst('stowage', w)
    targets.push([`${firefox ? 'Firefox, ' : ''}per-query persister after a real reload, ${name}: longest task while the persister ${w === 'save' ? 'saves' : 'restores'} ≤ 50 ms (worst round; after the task of the burst of fetchQuery calls, timed apart)`, worstTask, worstTask <= 50])
  }
}
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(targets)}`)
