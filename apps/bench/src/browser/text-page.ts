// Runs inside Chromium (bundled by browser-text-bench.ts): what the browser's own primitives cost
// on large inputs, which the codec's reading and writing are built around. TextDecoder over one
// large input against the same bytes in 64 KiB pieces (the decoder's string tables,
// packages/core/src/codec/table-text.ts), and a fresh Uint8Array against writing into one already
// in hand (every envelope encode hands out is new memory).
import { TABLE_PIECE } from '../../../../packages/core/src/codec/table-text.js'

export interface TextRow {
  readonly what: string
  readonly bytes: number
  /** Median µs per call of each method, by name. */
  readonly us: Record<string, number>
}

declare global {
  interface Window {
    runTextBench(rounds: number): TextRow[]
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

// Median µs of `call` over `rounds` samples of ≥ 30 ms each (the methods of a row take turns).
function timeTogether(calls: Array<() => unknown>, rounds: number): number[] {
  const samples: number[][] = calls.map(() => [])
  for (let r = 0; r < rounds; r++) {
    calls.forEach((call, i) => {
      let n = 0
      const t = performance.now()
      do {
        call()
        n++
      } while (performance.now() - t < 30)
      samples[i]!.push(((performance.now() - t) / n) * 1000)
    })
  }
  return samples.map(median)
}

// UTF-8 of `size` bytes of English-like text, with a Greek and Chinese phrase in one of `every` parts (never: ASCII only).
function text(size: number, every: number): Uint8Array {
  const parts: string[] = []
  let length = 0
  for (let i = 0; length < size; i++) {
    const part = every > 0 && i % every === 0 ? 'Ελληνική Δημοκρατία 中华人民共和国 ' : `Republic of somewhere ${i}, capital city `
    parts.push(part)
    length += part.length
  }
  const bytes = new TextEncoder().encode(parts.join(''))
  let end = size
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end-- // end on a character's first byte
  return bytes.slice(0, end)
}

window.runTextBench = (rounds) => {
  const rows: TextRow[] = []
  const whole = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  for (const [what, every] of [['ASCII text', 0], ['text with a non-ASCII phrase in one part of 20', 20]] as const) {
    for (const size of [16 * 1024, 256 * 1024 + 21_000, 460 * 1024, 1024 * 1024]) {
      const bytes = text(size, every)
      const [one, pieces] = timeTogether(
        [
          () => whole.decode(bytes).charCodeAt(7),
          () => {
            const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
            const out: string[] = []
            for (let at = 0; at < bytes.length; at += TABLE_PIECE) out.push(decoder.decode(bytes.subarray(at, at + TABLE_PIECE), { stream: at + TABLE_PIECE < bytes.length }))
            return out[0]!.charCodeAt(7)
          },
        ],
        rounds,
      )
      rows.push({ what: `TextDecoder, ${what}`, bytes: bytes.length, us: { 'one call': one!, 'pieces of 64 KiB': pieces! } })
    }
  }
  const source = text(64 * 1024, 0)
  const reused = new Uint8Array(64 * 1024)
  for (const size of [1024, 8 * 1024 + 500, 30 * 1024]) {
    // 329 at a time, as many as the webhook payloads, all kept until the next sample.
    let kept: Uint8Array[] = []
    const [fresh, into] = timeTogether(
      [
        () => {
          kept = []
          for (let i = 0; i < 329; i++) {
            const out = new Uint8Array(size)
            out.set(source.subarray(0, size))
            kept.push(out)
          }
        },
        () => {
          for (let i = 0; i < 329; i++) reused.set(source.subarray(0, size))
        },
      ],
      rounds,
    )
    rows.push({ what: 'copying bytes out, per copy (329 a sample)', bytes: size, us: { 'into a new Uint8Array': fresh! / 329, 'into one already in hand': into! / 329 } })
  }
  return rows
}
