// What Chromium's own primitives cost on the inputs the codec hands them (issue 18): TextDecoder
// over one large input against the same bytes in 64 KiB pieces, as the decoder reads string tables
// since 2026-11-28, and a copy into new memory against one into memory in hand. Prints Markdown
// and a RESULT line.
import { openBenchPage } from './browser-page.js'
import type { TextRow } from './browser/text-page.js'

const ROUNDS = 9
const chromium = await openBenchPage('text-page.ts', 'runTextBench')
let rows: TextRow[]
try {
  rows = (await chromium.page.evaluate((r) => window.runTextBench(r), ROUNDS)) as TextRow[]
} finally {
  await chromium.close()
}
const lines = [`Chromium ${chromium.version} (headless, Debian build), one page; medians of ${ROUNDS} samples, the two methods of a row taking turns; µs per call.`, '', '| input | bytes | method A | µs | method B | µs | A ÷ B |', '|---|---|---|---|---|---|---|']
for (const r of rows) {
  const [[a, ua], [b, ub]] = Object.entries(r.us) as [[string, number], [string, number]]
  lines.push(`| ${r.what} | ${r.bytes.toLocaleString('en')} | ${a} | ${ua.toFixed(1)} | ${b} | ${ub.toFixed(1)} | ${(ua / ub).toFixed(1)} |`)
}
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(rows)}`)
