// The CRC-32 on a first screen (issue 18): in a new Chromium page, the first CRC over a 55 kB
// envelope (the 50 kB object of fetch-bench.ts) and over 2 MB, by the JavaScript CRC, which runs in
// V8's interpreter until its loop is optimized, and by the portable build's WebAssembly one, whose
// module compiles in the background when a codec is made (its compile time is shown apart). A new
// page per sample, the methods alternating. Prints Markdown.
import { build } from 'esbuild'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'
import type { CrcMethod } from './browser/crc-cold-page.js'

const SAMPLES = 9
const SIZES = [55_000, 2_000_000]
const entry = join(dirname(fileURLToPath(import.meta.url)), 'browser', 'crc-cold-page.ts')
const script = (await build({ entryPoints: [entry], bundle: true, format: 'iife', platform: 'browser', write: false, target: 'es2022', minify: true })).outputFiles[0]!.text
const browser = await chromium.launch(chromiumLaunchOptions)
const samples = new Map<string, Array<{ compileMs: number; firstMs: number; secondMs: number }>>()
try {
  for (let round = 0; round < SAMPLES; round++) {
    for (const size of SIZES) {
      const expected = zlibCrc32(new Uint8Array(size).map((_, i) => (i * 2_654_435_761) >>> 24))
      for (const method of (round % 2 === 0 ? ['js', 'wasm'] : ['wasm', 'js']) as CrcMethod[]) {
        const page = await browser.newPage()
        try {
          await page.setContent(`<script>${script}</script>`)
          const r = await page.evaluate(([m, s]) => window.firstCrcs(m, s), [method, size] as const)
          if (r.crc !== expected) throw new Error(`${method} gave another CRC than zlib`)
          samples.set(`${method} ${size}`, [...(samples.get(`${method} ${size}`) ?? []), r])
        } finally {
          await page.close()
        }
      }
    }
  }
} finally {
  await browser.close()
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`
const lines = [
  `Chromium ${browser.version()} (headless, Debian build), a new page per sample, ${SAMPLES} samples per cell, the methods alternating; medians, with the range. "First": the page's first CRC over these bytes; "second": the same bytes again. The WebAssembly module's compile (in the background, started when a codec is made) is timed apart.`,
  '',
  '| bytes | JavaScript CRC, first ms | second ms | WebAssembly CRC, first ms | second ms | its compile ms | first: WebAssembly ×JavaScript |',
  '|---|---|---|---|---|---|---|',
]
for (const size of SIZES) {
  const js = samples.get(`js ${size}`)!
  const wasm = samples.get(`wasm ${size}`)!
  const first = (xs: typeof js) => xs.map((x) => x.firstMs)
  lines.push(
    `| ${(size / 1000).toLocaleString('en')} kB | ${median(first(js)).toFixed(1)} (${range(first(js))}) | ${median(js.map((x) => x.secondMs)).toFixed(1)} | ${median(first(wasm)).toFixed(1)} (${range(first(wasm))}) | ${median(wasm.map((x) => x.secondMs)).toFixed(1)} | ${median(wasm.map((x) => x.compileMs)).toFixed(1)} | ${(median(first(wasm)) / median(first(js))).toFixed(2)} |`,
  )
}
console.log(lines.join('\n'))
