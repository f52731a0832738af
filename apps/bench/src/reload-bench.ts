// Reads after a real reload (issue 18): the 329 GitHub webhook payloads stored in IndexedDB by
// idb-keyval (structured clone, and JSON strings) and by Stowage (envelopes encoded in the page,
// and the deflated envelopes a Node server sends, kept as they came); the browser is closed and
// started again on the same on-disk profile for every sample, and the new page times its first
// reads: open, read and decode every value, in one batch and one call at a time. Prints Markdown
// and a RESULT line.
import { createCodec } from '@stowage/core'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright'
import type { ReloadMethod, ReloadPass } from './browser/reload-page.js'
import { serveBundle, withPersistentPage } from './browser-page.js'
import { webhookPayloads } from './real-data.js'

// Samples per cell; RELOAD_ROUNDS sets another count (the figures of one run of 5 move by ±0.2× between runs).
const ROUNDS = Number(process.env.RELOAD_ROUNDS ?? 5)
const allMethods: Array<[ReloadMethod, string]> = [
  ['clone', 'idb-keyval, structured clone'],
  ['json', 'idb-keyval, JSON strings + JSON.parse'],
  ['stowage', 'Stowage Cache over @stowage/idb, encoded in the page'],
  ['stowage-defaults', 'the same through a Cache with its defaults (in-process tier on: values kept deep-frozen)'],
  ['stowage-server', 'Stowage Cache over @stowage/idb, deflated envelopes from a Node server (acceptBytes: kept inflated)'],
  ['stowage-server-deflated', 'Stowage Cache over @stowage/idb, the same kept as they came (inflate: false)'],
  ['stowage-bytes', '@stowage/idb alone: the envelopes as bytes, not decoded'],
]
// RELOAD_METHODS=clone,stowage picks some (the clone is every ratio's base: always kept).
const picked = process.env.RELOAD_METHODS?.split(',')
const methods = allMethods.filter(([m]) => m === 'clone' || picked === undefined || picked.includes(m))
// stowage-bytes and stowage-defaults read what 'stowage' stored.
if (methods.some(([m]) => m === 'stowage-bytes' || m === 'stowage-defaults') && !methods.some(([m]) => m === 'stowage')) throw new Error('RELOAD_METHODS: stowage-bytes and stowage-defaults need stowage')
const passes: ReloadPass[] = ['batch', 'one-by-one', 'at-once']

const { server, url: origin } = await serveBundle('reload-page.ts')
const profile = mkdtempSync(join(tmpdir(), 'stowage-reload-'))

// A browser on the profile, one page of the bench's origin, ready.
async function session<T>(work: (page: Page) => Promise<T>): Promise<{ result: T; version: string }> {
  return withPersistentPage(profile, origin, 'readReload', async (page) => ({ result: await work(page), version: page.context().browser()?.version() ?? 'unknown' }))
}

const payloads = webhookPayloads()
const serverEnvelopes = payloads.map((p) => Array.from(createCodec().encode(p)))
const samples = new Map<string, number[]>()
const bytes = new Map<ReloadMethod, number | undefined>()
let version = ''
try {
  await session(async (page) => {
    for (const [method] of methods.filter(([m]) => m !== 'stowage-bytes' && m !== 'stowage-defaults')) bytes.set(method, await page.evaluate(([m, p, e]) => window.storeReload(m, p, e), [method, payloads, serverEnvelopes] as const))
  })
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < methods.length; i++) {
      const [method] = methods[(i + round) % methods.length]!
      for (const pass of passes) {
        process.stderr.write(`reload-bench: ${method} ${pass} round ${round}\n`)
        const { result, version: v } = await session((page) => {
          page.on('console', (m) => process.stderr.write(`  ${m.text()}\n`))
          return page.evaluate(([m, n, p]) => window.readReload(m, n, p), [method, payloads.length, pass] as const)
        })
        version = v
        samples.set(`${method} ${pass}`, [...(samples.get(`${method} ${pass}`) ?? []), result])
      }
    }
  }
} finally {
  server.close()
  rmSync(profile, { recursive: true, force: true })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const med = (method: ReloadMethod, pass: string) => median(samples.get(`${method} ${pass}`)!)
const ratio = (method: ReloadMethod, pass: string) => med(method, pass) / med('clone', pass)
// What each method keeps in IndexedDB: those that read what 'stowage' stored, its bytes.
const stored = (m: ReloadMethod) => {
  const b = bytes.get(m === 'stowage-bytes' || m === 'stowage-defaults' ? 'stowage' : m)
  return b === undefined ? '— (a clone)' : `${(b / 1e6).toFixed(2)} MB`
}
const lines = [
  `Chromium ${version} (headless, Debian build), a profile on disk. The 329 GitHub webhook payloads (3.25 MB of JSON) were stored once; then, for every sample, the browser was started again on that profile and a new page timed its first reads of one method: open the database, read and decode all 329 values, in one batch (\`getMany\`), one call each after another (\`get\`, awaited in turn), or one call each all asked for at once (as components mounting together ask). Medians of ${ROUNDS} samples, the method order rotated; ratios against the structured clone.`,
  '',
  '| method | bytes in IndexedDB | batch ms | ×clone | one by one ms | ×clone | at once ms | ×clone |',
  '|---|---|---|---|---|---|---|---|',
  ...methods.map(([m, name]) => `| ${name} | ${stored(m)} | ${passes.map((p) => `${med(m, p).toFixed(1)} | ${ratio(m, p).toFixed(2)}`).join(' | ')} |`),
]
const targetRows: Array<[string, ReloadMethod, ReloadPass]> = [
  ['reads after a reload (batch), encoded in the page ≤ 1.0× the structured clone', 'stowage', 'batch'],
  ['reads after a reload (one by one), encoded in the page ≤ 1.0× the structured clone', 'stowage', 'one-by-one'],
  ['reads after a reload (at once), encoded in the page ≤ 1.0× the structured clone', 'stowage', 'at-once'],
  ['reads after a reload (batch), server envelopes ≤ 1.0× the structured clone', 'stowage-server', 'batch'],
]
const targets = targetRows.filter(([, m]) => samples.has(`${m} batch`)).map(([name, m, p]): [string, number, boolean] => [name, ratio(m, p), ratio(m, p) <= 1])
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(targets)}`)
