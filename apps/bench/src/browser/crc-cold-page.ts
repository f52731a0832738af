// Runs inside Chromium (bundled by crc-cold-bench.ts): the first CRC-32 a new page computes over an
// envelope's size of bytes, by the JavaScript CRC (crc32.ts) or by the WebAssembly one of the
// portable build (wasm-crc32.ts, compiled in the background first, as making a codec starts it).
import { crc32 } from '../../../../packages/core/src/codec/crc32.js'
import { startWasmCrc32, wasmCrc32 } from '../../../../packages/core/src/codec/platform/wasm-crc32.js'

export type CrcMethod = 'js' | 'wasm'

declare global {
  interface Window {
    firstCrcs(method: CrcMethod, size: number): Promise<{ compileMs: number; firstMs: number; secondMs: number; crc: number }>
  }
}

window.firstCrcs = async (method, size) => {
  const bytes = new Uint8Array(size)
  for (let i = 0; i < size; i++) bytes[i] = (i * 2_654_435_761) >>> 24
  let compileMs = 0
  if (method === 'wasm') {
    const t = performance.now()
    if (!(await startWasmCrc32())) throw new Error('the WebAssembly CRC did not compile')
    compileMs = performance.now() - t
  }
  const run = method === 'wasm' ? (b: Uint8Array) => wasmCrc32(b, 0)! : (b: Uint8Array) => crc32(b)
  let t = performance.now()
  const crc = run(bytes)
  const firstMs = performance.now() - t
  t = performance.now()
  if (run(bytes) !== crc) throw new Error('the CRC changed')
  return { compileMs, firstMs, secondMs: performance.now() - t, crc }
}
