// Two costs issue 20 asked to measure (items 8 and 20), on the 329 real webhook payloads:
// - encode(value, options) with a fresh options object on every call, against a codec made once
//   and against JSON.stringify (the codec cache keeps one codec per option content);
// - hits of the in-process tier with its default, deep-frozen values, against `freeze: false`
//   (one shared, mutable object per key), and what set() pays to keep its own frozen copy.
// Medians of 7 alternating rounds, in this process. Prints Markdown and a RESULT line.
import { createCache, createCodec, encode, type Store } from '@stowage/core'
import { webhookPayloads } from './real-data.js'

const payloads = webhookPayloads()
const ROUNDS = 15
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
let sink: unknown

/** Microseconds per payload for one pass of `fn` over all of them. */
function perPayload(fn: (value: unknown) => unknown): number {
  const t = performance.now()
  for (const value of payloads) sink = fn(value)
  return ((performance.now() - t) * 1000) / payloads.length
}

// Item 20: fresh options per call.
const once = createCodec({ compress: 'never' })
const encoders: Record<string, (value: unknown) => unknown> = {
  'JSON.stringify': (value) => JSON.stringify(value),
  'a codec made once, compress: never': (value) => once.encode(value),
  "encode(value, { compress: 'never' }), a fresh options object per call": (value) => encode(value, { compress: 'never' }),
}
const encodeTimes: Record<string, number[]> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(encoders)) {
    perPayload(fn) // warm
    ;(encodeTimes[name] ??= []).push(perPayload(fn))
  }
}

// Item 8: the in-process tier in front of a store that is not the memory store (its default).
function bytesStore(): Store {
  const map = new Map<string, Uint8Array>()
  return {
    name: 'bytes',
    get: async (key) => map.get(key),
    set: async (key, value) => void map.set(key, value),
    delete: async (key) => map.delete(key),
  }
}
const keys = payloads.map((_, i) => `w${i}`)
const tiers = {
  'freeze (the default)': createCache({ store: bytesStore(), local: true }),
  'freeze: false': createCache({ store: bytesStore(), local: { freeze: false } }),
}
const hitTimes: Record<string, number[]> = {}
const setTimes: Record<string, number[]> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, cache] of Object.entries(tiers)) {
    let t = performance.now()
    for (let i = 0; i < payloads.length; i++) await cache.set(keys[i]!, payloads[i])
    ;(setTimes[name] ??= []).push(((performance.now() - t) * 1000) / payloads.length)
    // The first read of each key after set decodes its copy (see set): timed hits come after it.
    for (const key of keys) sink = await cache.get(key)
    t = performance.now()
    for (let pass = 0; pass < 20; pass++) for (const key of keys) sink = await cache.get(key)
    ;(hitTimes[name] ??= []).push(((performance.now() - t) * 1000) / (payloads.length * 20))
  }
}
void sink

const json = median(encodeTimes['JSON.stringify']!)
const lines = [
  `Node ${process.version}; ${payloads.length} webhook payloads (@octokit/webhooks-examples); medians of ${ROUNDS} rounds.`,
  '',
  '| encode | µs per payload | ×JSON.stringify |',
  '|---|---|---|',
  ...Object.keys(encoders).map((name) => `| ${name} | ${median(encodeTimes[name]!).toFixed(2)} | ${(median(encodeTimes[name]!) / json).toFixed(2)} |`),
  '',
  '| in-process tier | set µs per payload | hit µs | hits per second |',
  '|---|---|---|---|',
  ...Object.keys(tiers).map((name) => `| ${name} | ${median(setTimes[name]!).toFixed(1)} | ${median(hitTimes[name]!).toFixed(3)} | ${Math.round(1e6 / median(hitTimes[name]!)).toLocaleString('en')} |`),
]
console.log(lines.join('\n'))
const fresh = median(encodeTimes["encode(value, { compress: 'never' }), a fresh options object per call"]!) / median(encodeTimes['a codec made once, compress: never']!)
console.log(`RESULT ${JSON.stringify([['encode with fresh options ≤ 1.2× a codec made once (issue 20, item 20)', fresh, fresh <= 1.2]])}`)
