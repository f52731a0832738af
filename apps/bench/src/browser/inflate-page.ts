// Runs inside Chromium (bundled by inflate-bench.ts): fflate against the browser's native
// DecompressionStream / CompressionStream ('deflate-raw'), by payload size, on the same bytes; and
// what the portable platform adds to fflate's inflate to refuse bytes after the stream (deflateEnd).
import { deflateSync, inflateSync } from 'fflate'
import { deflateEnd } from '../../../../packages/core/src/codec/platform/deflate-end.js'

export interface InflateRow {
  size: number
  samples: number
  fflateInflateMs: number
  /** Finding where the stream ends (deflateEnd), which the portable platform does after fflate's inflate. */
  endMs: number
  streamInflateMs: number
  fflateDeflateMs: number
  streamDeflateMs: number
}

declare global {
  interface Window {
    runInflateBench(payloads: number[][]): Promise<InflateRow[]>
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function pipe(data: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<number> {
  const reader = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream).getReader()
  let n = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return n
    n += value.length
  }
}

// Times `fn` over enough repetitions to pass Chromium's 0.1 ms clock resolution.
async function time(fn: () => unknown | Promise<unknown>, minMs = 30): Promise<number> {
  for (let i = 0; i < 3; i++) await fn()
  const out: number[] = []
  for (let r = 0; r < 7; r++) {
    let n = 0
    const t = performance.now()
    while (performance.now() - t < minMs / 7) {
      await fn()
      n++
    }
    out.push((performance.now() - t) / n)
  }
  return median(out)
}

window.runInflateBench = async (payloads) => {
  const rows: InflateRow[] = []
  for (const list of payloads) {
    const bytes = new Uint8Array(list)
    const deflated = deflateSync(bytes, { level: 6 })
    rows.push({
      size: bytes.length,
      samples: 7,
      fflateInflateMs: await time(() => inflateSync(deflated, { out: new Uint8Array(bytes.length) })),
      endMs: await time(() => deflateEnd(deflated)),
      streamInflateMs: await time(() => pipe(deflated, new DecompressionStream('deflate-raw'))),
      fflateDeflateMs: await time(() => deflateSync(bytes, { level: 6 })),
      streamDeflateMs: await time(() => pipe(bytes, new CompressionStream('deflate-raw'))),
    })
  }
  return rows
}
