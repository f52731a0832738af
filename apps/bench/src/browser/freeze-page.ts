// Runs inside Chromium and Firefox (bundled by browser-freeze-bench.ts): what a Cache read from
// the store costs with the in-process tier on (the default), which keeps the value deep-frozen.
// Decoding alone, decoding and then freezing the value (deepFreeze, as the tier did before
// 2026-11-29), and decoding with `freeze: true` (the value built frozen by the decoder, as the
// Cache now asks for it), over the same envelopes in the same page.
import { createCodec } from '@stowage/core'
import { deepFreeze } from '../../../../packages/core/src/codec/deep-freeze.js'

export interface FreezeRow {
  readonly name: string
  /** Median ms for all the corpus's values, by method. */
  readonly ms: { decode: number; decodeThenFreeze: number; builtFrozen: number }
}

declare global {
  interface Window {
    runFreezeBench(corpora: Array<{ name: string; jsonTexts: string[] }>, rounds: number): FreezeRow[]
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

window.runFreezeBench = (corpora, rounds) => {
  const codec = createCodec({ compress: 'never' })
  const frozen = { freeze: true } as const
  return corpora.map(({ name, jsonTexts }) => {
    const envelopes = jsonTexts.map((t) => codec.encode(JSON.parse(t)))
    const methods = {
      decode: () => envelopes.forEach((e) => codec.decode(e)),
      decodeThenFreeze: () => envelopes.forEach((e) => deepFreeze(codec.decode(e))),
      builtFrozen: () => envelopes.forEach((e) => codec.decode(e, frozen)),
    }
    const names = Object.keys(methods) as Array<keyof typeof methods>
    const samples: Record<string, number[]> = { decode: [], decodeThenFreeze: [], builtFrozen: [] }
    for (let r = 0; r < rounds; r++) {
      // Each method once a round, the order rotating.
      for (let i = 0; i < names.length; i++) {
        const m = names[(r + i) % names.length]!
        const t = performance.now()
        methods[m]()
        samples[m]!.push(performance.now() - t)
      }
    }
    return { name, ms: { decode: median(samples.decode!), decodeThenFreeze: median(samples.decodeThenFreeze!), builtFrozen: median(samples.builtFrozen!) } }
  })
}
