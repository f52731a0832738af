// Runs inside a browser (bundled by browser-codec-bench.ts): decode and encode of real corpora in
// the page, Stowage's portable codec beside JSON.parse / JSON.stringify, structuredClone,
// msgpackr (records, with and without bundleStrings) and @msgpack/msgpack, on the same values.
import { createCodec } from '@stowage/core'
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack'
import { Packr } from 'msgpackr'
import { crc32 } from '../../../../packages/core/src/codec/crc32.js'

export interface CodecRow {
  method: string
  /** Median ms to decode every value of the corpus once. */
  decodeMs: number
  /** Median ms to encode every value of the corpus once (NaN where not measured). */
  encodeMs: number
  /** Bytes of all encoded values. */
  bytes: number
}

declare global {
  interface Window {
    runCodecBench(jsonTexts: string[], serverEnvelopes: number[][], rounds: number): Promise<CodecRow[]>
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const pause = () => new Promise((r) => setTimeout(r, 0))

// Every method warms up for this long (at least two passes) before it is timed, so that every
// JavaScript decoder is measured once the engine has optimized it, as a page that decodes often
// runs it; the cold first call is what the reload benchmarks measure. Two passes alone left
// Stowage's decoder partly unoptimized in Chromium: 1.5–2.2× JSON.parse on the webhooks between
// runs, against 1.2× after a second of passes.
const WARM_UP_MS = 300

// One sample: ms per pass, passes repeated until the sample lasts ≥ 20 ms (the clock is coarse in
// browsers).
function sample(pass: () => void): number {
  let n = 0
  const t = performance.now()
  do {
    pass()
    n++
  } while (performance.now() - t < 20)
  return (performance.now() - t) / n
}

// Median ms of one pass over the corpus for every method, after each has warmed up. The methods
// take turns: every round takes one sample of each, in an order that rotates from round to round,
// so that a slow spell of this shared machine (a GC of another tab, another process) falls on all
// of them alike instead of on whichever method was being timed then. Timing one method after the
// other put Stowage's two codecs, reading the same bytes with the same code, at 1.41× and 2.32×
// JSON.parse in one run.
async function timeTogether(passes: Array<() => void>, rounds: number): Promise<number[]> {
  for (const pass of passes) {
    const warm = performance.now()
    do {
      pass()
      pass()
    } while (performance.now() - warm < WARM_UP_MS)
  }
  const samples: number[][] = passes.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < passes.length; k++) {
      const i = (r + k) % passes.length
      await pause()
      samples[i]!.push(sample(passes[i]!))
    }
  }
  return samples.map(median)
}

async function time(pass: () => void, rounds: number): Promise<number> {
  return (await timeTogether([pass], rounds))[0]!
}

async function timeAsync(pass: () => Promise<void>, rounds: number): Promise<number> {
  const warm = performance.now()
  do {
    await pass()
    await pass()
  } while (performance.now() - warm < WARM_UP_MS)
  const samples: number[] = []
  for (let r = 0; r < rounds; r++) {
    await pause()
    let n = 0
    const t = performance.now()
    do {
      await pass()
      n++
    } while (performance.now() - t < 20)
    samples.push((performance.now() - t) / n)
  }
  return median(samples)
}

interface Method {
  name: string
  encode: (v: unknown) => Uint8Array | string | unknown
  decode: (b: never) => unknown
  size: (b: never) => number
}

window.runCodecBench = async (jsonTexts, serverEnvelopes, rounds) => {
  const values = jsonTexts.map((t) => JSON.parse(t) as unknown)
  const plain = createCodec({ compress: 'never' })
  const plain3 = createCodec({ compress: 'never', formatVersion: 3 })
  const plain2 = createCodec({ compress: 'never', formatVersion: 2 })
  const byDefault = createCodec()
  const records = new Packr({ useRecords: true })
  const bundled = new Packr({ useRecords: true, bundleStrings: true })
  const utf8 = new TextEncoder()
  const methods: Method[] = [
    { name: 'JSON.stringify / JSON.parse', encode: (v) => JSON.stringify(v), decode: (s: string) => JSON.parse(s), size: (s: string) => utf8.encode(s).length },
    { name: 'structuredClone', encode: (v) => v, decode: (v: unknown) => structuredClone(v), size: () => NaN },
    { name: "Stowage `compress: 'never'`", encode: (v) => plain.encode(v), decode: (b: Uint8Array) => plain.decode(b), size: (b: Uint8Array) => b.length },
    { name: "Stowage `compress: 'never'`, format 3 at most", encode: (v) => plain3.encode(v), decode: (b: Uint8Array) => plain3.decode(b), size: (b: Uint8Array) => b.length },
    { name: "Stowage `compress: 'never'`, format 2", encode: (v) => plain2.encode(v), decode: (b: Uint8Array) => plain2.decode(b), size: (b: Uint8Array) => b.length },
    { name: 'Stowage default (browser policy)', encode: (v) => byDefault.encode(v), decode: (b: Uint8Array) => byDefault.decode(b), size: (b: Uint8Array) => b.length },
    { name: 'msgpackr records', encode: (v) => records.pack(v), decode: (b: Uint8Array) => records.unpack(b), size: (b: Uint8Array) => b.length },
    { name: 'msgpackr records + bundleStrings', encode: (v) => bundled.pack(v), decode: (b: Uint8Array) => bundled.unpack(b), size: (b: Uint8Array) => b.length },
    { name: '@msgpack/msgpack', encode: (v) => msgpackEncode(v), decode: (b: Uint8Array) => msgpackDecode(b), size: (b: Uint8Array) => b.length },
  ]
  const encoded = methods.map((m) => values.map((v) => m.encode(v)) as never[])
  const decodeMs = await timeTogether(
    methods.map((m, i) => () => {
      for (const e of encoded[i]!) m.decode(e)
    }),
    rounds,
  )
  const encoders = methods.filter((m) => m.name !== 'structuredClone')
  const encodeTimes = await timeTogether(
    encoders.map((m) => () => {
      for (const v of values) m.encode(v)
    }),
    rounds,
  )
  const rows: CodecRow[] = methods.map((m, i) => ({
    method: m.name,
    decodeMs: decodeMs[i]!,
    encodeMs: encoders.includes(m) ? encodeTimes[encoders.indexOf(m)]! : NaN,
    bytes: encoded[i]!.reduce((n: number, e: never) => n + m.size(e), 0),
  }))
  // The share of Stowage's decode that checks the envelope's CRC-32 (portable table, as the codec runs it).
  const plainBytes = values.map((v) => plain.encode(v))
  rows.push({
    method: "of which the CRC-32 of Stowage `compress: 'never'` (checked by every decode)",
    decodeMs: await time(() => {
      for (const b of plainBytes) crc32(b)
    }, rounds),
    encodeMs: NaN,
    bytes: NaN,
  })
  // What a Cache does with the same bytes: decodeAsync, whose inflate is native (DecompressionStream) from 256 KiB.
  const stored = values.map((v) => byDefault.encode(v))
  rows.push({
    method: 'Stowage default (browser policy), decodeAsync',
    decodeMs: await timeAsync(async () => {
      for (const e of stored) await byDefault.decodeAsync(e)
    }, rounds),
    encodeMs: NaN,
    bytes: stored.reduce((n, e) => n + e.length, 0),
  })
  if (serverEnvelopes.length > 0) {
    const envelopes = serverEnvelopes.map((e) => new Uint8Array(e))
    const decodeMs = await time(() => {
      for (const e of envelopes) byDefault.decode(e)
    }, rounds)
    rows.push({ method: 'Stowage envelopes from the Node server (default policy)', decodeMs, encodeMs: NaN, bytes: envelopes.reduce((n, e) => n + e.length, 0) })
  }
  return rows
}
