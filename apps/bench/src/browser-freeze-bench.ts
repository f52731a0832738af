// A Cache read from the store with the in-process tier on keeps the value deep-frozen: in
// Chromium and Firefox, decoding and then freezing against the decoder building it frozen
// (freeze-page.ts). Prints Markdown and a RESULT line.
import { openBenchPage, openFirefoxBenchPage } from './browser-page.js'
import type { FreezeRow } from './browser/freeze-page.js'
import { realWorkloads } from './real-data.js'

const ROUNDS = Number(process.env.FREEZE_ROUNDS ?? 21)
const corpora = realWorkloads().map((w) => ({ name: w.name, jsonTexts: w.values.map((v) => JSON.stringify(v)) }))
const tables: Array<{ engine: string; rows: FreezeRow[] }> = []

const chromium = await openBenchPage('freeze-page.ts', 'runFreezeBench')
try {
  tables.push({ engine: `Chromium ${chromium.version}`, rows: (await chromium.page.evaluate(([c, r]) => window.runFreezeBench(c, r), [corpora, ROUNDS] as const)) as FreezeRow[] })
} finally {
  await chromium.close()
}
const firefox = await openFirefoxBenchPage('freeze-page.ts', 'runFreezeBench')
try {
  tables.push({ engine: `Firefox ${firefox.version}`, rows: await firefox.evaluate(([c, r]) => window.runFreezeBench(c, r), [corpora, ROUNDS] as [typeof corpora, number]) })
} finally {
  await firefox.close()
}

const lines = [`Headless Debian builds, one page each; the corpora's values encoded in the page (\`compress: 'never'\`), then each method once a round, the order rotating; medians of ${ROUNDS} rounds, ms for all of a corpus's values. "Then deepFreeze": decoded, then frozen by walking the value (what the in-process tier did before); "built frozen": \`codec.decode(bytes, { freeze: true })\` (what a Cache with the tier on asks for since 2026-11-29).`, '']
lines.push('| engine | corpus | decode ms | decode, then deepFreeze ms | ×decode | built frozen ms | ×decode | built frozen ÷ then deepFreeze |', '|---|---|---|---|---|---|---|---|')
for (const { engine, rows } of tables) {
  for (const { name, ms } of rows) {
    lines.push(`| ${engine} | ${name} | ${ms.decode.toFixed(2)} | ${ms.decodeThenFreeze.toFixed(2)} | ${(ms.decodeThenFreeze / ms.decode).toFixed(2)} | ${ms.builtFrozen.toFixed(2)} | ${(ms.builtFrozen / ms.decode).toFixed(2)} | ${(ms.builtFrozen / ms.decodeThenFreeze).toFixed(2)} |`)
  }
}
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(tables)}`)
