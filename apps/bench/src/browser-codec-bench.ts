// Decode and encode of the real corpora inside Chromium, Firefox and WebKit (issue 18): Stowage's portable codec beside
// JSON, structuredClone, msgpackr and @msgpack/msgpack, measured in the page on the same values.
// Prints Markdown and a RESULT line.
import { createCodec } from '@stowage/core'
import { openBenchPage, openFirefoxBenchPage, openWebKitBenchPage } from './browser-page.js'
import type { CodecRow } from './browser/codec-page.js'
import { persistedSegments, realWorkloads } from './real-data.js'

const ROUNDS = 15
// `--engine chromium|firefox|webkit` runs one engine; without it, all three.
const only = process.argv.includes('--engine') ? process.argv[process.argv.indexOf('--engine') + 1] : undefined
const runs = (engine: string) => only === undefined || only === engine
const server = createCodec()
type Run = (jsonTexts: string[], envelopes: number[][], rounds: number) => Promise<CodecRow[]>
const tables: Array<{ engine: string; name: string; json: number; rows: CodecRow[] }> = []
const versions: string[] = []

async function measure(engine: string, run: Run): Promise<void> {
  // The real corpora, and the persister's segments of small queries (format 4 against 3: one query in 90 holds an emoji).
  for (const w of [...realWorkloads(), { name: 'small queries as persisted segments (5,000 in 38 arrays of 135)', values: persistedSegments() }]) {
    const jsonTexts = w.values.map((v) => JSON.stringify(v))
    const envelopes = w.values.map((v) => Array.from(server.encode(v)))
    process.stderr.write(`browser-codec-bench: ${engine}, ${w.name}\n`)
    // Through WebDriver's JSON a NaN ("not measured") arrives as null.
    const rows = (await run(jsonTexts, envelopes, ROUNDS)).map((r) => ({ ...r, encodeMs: r.encodeMs ?? NaN, bytes: r.bytes ?? NaN }))
    tables.push({ engine, name: w.name, json: jsonTexts.reduce((n, t) => n + Buffer.byteLength(t), 0), rows })
  }
}

if (runs('chromium')) {
  const chromium = await openBenchPage('codec-page.ts', 'runCodecBench')
  try {
    versions.push(`Chromium ${chromium.version}`)
    await measure('Chromium', (t, e, r) => chromium.page.evaluate(([a, b, c]) => window.runCodecBench(a, b, c), [t, e, r] as const) as Promise<CodecRow[]>)
  } finally {
    await chromium.close()
  }
}
if (runs('firefox')) {
  const firefox = await openFirefoxBenchPage('codec-page.ts', 'runCodecBench')
  try {
    versions.push(`Firefox ${firefox.version}`)
    await measure('Firefox', (t, e, r) => firefox.evaluate(([a, b, c]) => window.runCodecBench(a, b, c), [t, e, r] as [string[], number[][], number]))
  } finally {
    await firefox.close()
  }
}
// WebKit: Debian's WebKitGTK MiniBrowser under Xvfb. Its clock moves in 1 ms steps; a sample lasts 20 ms or more.
if (runs('webkit')) {
  const webkit = await openWebKitBenchPage('codec-page.ts', 'runCodecBench')
  try {
    versions.push(webkit.version)
    await measure('WebKit', (t, e, r) => webkit.evaluate(([a, b, c]) => window.runCodecBench(a, b, c), [t, e, r] as [string[], number[][], number]))
  } finally {
    await webkit.close()
  }
}
const lines = [`${versions.join(', ')} (Debian builds; Chromium and Firefox headless, WebKitGTK's MiniBrowser under Xvfb), one page each; medians of ${ROUNDS} samples of each method, taken in rounds (every method once per round, in an order that rotates); times ×JSON.parse / ×JSON.stringify of the same values in the same page. "Envelopes from the Node server": what a Node server's default codec writes (deflated from 1 KiB), decoded in the page.`, '']
for (const t of tables) {
  const base = t.rows[0]!
  lines.push(`### ${t.engine}, ${t.name}: ${t.json.toLocaleString('en')} B of JSON`, '', '| method | bytes ×JSON | decode ms | ×JSON.parse | encode ms | ×JSON.stringify |', '|---|---|---|---|---|---|')
  for (const r of t.rows) {
    lines.push(`| ${r.method} | ${Number.isNaN(r.bytes) ? '—' : (r.bytes / t.json).toFixed(3)} | ${r.decodeMs.toFixed(2)} | ${(r.decodeMs / base.decodeMs).toFixed(2)} | ${Number.isNaN(r.encodeMs) ? '—' : r.encodeMs.toFixed(2)} | ${Number.isNaN(r.encodeMs) ? '—' : (r.encodeMs / base.encodeMs).toFixed(2)} |`)
  }
  lines.push('')
}
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(tables.map((t) => [t.engine, t.name, Object.fromEntries(t.rows.map((r) => [r.method, [r.decodeMs / t.rows[0]!.decodeMs, r.encodeMs / t.rows[0]!.encodeMs, r.bytes / t.json]]))]))}`)
