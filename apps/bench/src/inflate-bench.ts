// fflate vs the browser's native DecompressionStream/CompressionStream, by payload size, in real
// Chromium: the data behind the portable platform's ASYNC_INFLATE_MIN and ASYNC_DEFLATE_MIN.
// Payloads are Stowage MessagePack of real data (the GitHub webhook payloads, joined to reach the
// larger sizes). Prints a Markdown section.
import { createCodec } from '@stowage/core'
import { openBenchPage } from './browser-page.js'
import type { InflateRow } from './browser/inflate-page.js'
import { webhookPayloads } from './real-data.js'

const never = createCodec({ compress: 'never' })
const hooks = webhookPayloads()
const sizes = [1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
const payloads = sizes.map((size) => {
  const values: unknown[] = []
  let bytes = 0
  for (let i = 0; bytes < size; i++) {
    const hook = hooks[i % hooks.length]
    values.push(hook)
    bytes += never.encode(hook).length
  }
  // Cut to the exact size: the tail of a value is still realistic bytes to compress.
  return Array.from(never.encode(values).subarray(8, 8 + size))
})

const { page, version, close } = await openBenchPage('inflate-page.ts', 'runInflateBench')
const rows = (await page.evaluate((p) => window.runInflateBench(p), payloads)) as InflateRow[]
await close()

const f = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`)
const kib = (n: number) => (n >= 1 << 20 ? `${n >> 20} MiB` : `${n >> 10} KiB`)
console.log(
  [
    `Chromium ${version}; payloads are Stowage MessagePack of the GitHub webhook payloads (level 6); medians of 7 timed batches.`,
    '',
    '| payload | inflate: fflate | + finding its end | ratio | DecompressionStream | ratio | deflate: fflate L6 | CompressionStream | ratio |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${kib(r.size)} | ${f(r.fflateInflateMs)} | ${f(r.endMs)} | ${(r.endMs / r.fflateInflateMs).toFixed(2)} | ${f(r.streamInflateMs)} | ${(r.streamInflateMs / r.fflateInflateMs).toFixed(2)} | ${f(r.fflateDeflateMs)} | ${f(r.streamDeflateMs)} | ${(r.streamDeflateMs / r.fflateDeflateMs).toFixed(2)} |`,
    ),
    '',
    'The portable platform finds where each fflate stream ends (packages/core/src/codec/platform/deflate-end.ts), to refuse bytes after it as zlib does: the second column, beside the inflate.',
  ].join('\n'),
)
