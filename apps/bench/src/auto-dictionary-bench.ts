// How many samples and how large a dictionary a Cache's automatic training needs (issue 19): for
// small real values (one emoji row of emojibase; one country of world-countries; the distinct
// users, issues and repositories of the GitHub webhook examples), a dictionary trained on N of
// them, measured on values it never saw: bytes against the same values without a dictionary, and
// the time to train. Prints Markdown.
import { createCodec, trainDictionary } from '@stowage/core'
import { emojis, webhookPayloads, worldCountries } from './real-data.js'

function distinct(values: unknown[]): unknown[] {
  const seen = new Set<string>()
  return values.filter((v) => {
    const j = JSON.stringify(v)
    if (seen.has(j)) return false
    seen.add(j)
    return true
  })
}

// A fixed shuffle (the same order every run), so that training sets are comparable.
function shuffled<T>(values: T[]): T[] {
  const out = [...values]
  let x = 12345
  for (let i = out.length - 1; i > 0; i--) {
    x = (Math.imul(x, 1103515245) + 12345) | 0
    const j = (x >>> 1) % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

const hooks = webhookPayloads() as Array<Record<string, unknown>>
const sets: Array<[string, unknown[]]> = [
  ['emojibase rows', shuffled(emojis() as unknown[])],
  ['world-countries, one country each', shuffled(worldCountries() as unknown[])],
  ['GitHub users (webhook senders and owners)', shuffled(distinct(hooks.flatMap((h) => [h.sender, (h.repository as Record<string, unknown> | undefined)?.owner]).filter((v) => v !== undefined && v !== null)))],
  ['GitHub issues and pull requests', shuffled(distinct(hooks.flatMap((h) => [h.issue, h.pull_request]).filter((v) => v !== undefined && v !== null)))],
]
const plain = createCodec()
const lines = ['| values | held out | JSON B (mean) | without a dictionary | samples | size | with it | ×without | train ms |', '|---|---|---|---|---|---|---|---|---|']
for (const [name, values] of sets) {
  const held = values.slice(0, Math.min(100, Math.floor(values.length / 4)))
  const pool = values.slice(held.length)
  const json = held.reduce((n: number, v) => n + JSON.stringify(v).length, 0)
  const without = held.reduce((n: number, v) => n + plain.encode(v).length, 0)
  for (const samples of [25, 50, 100, 200, 400]) {
    if (samples > pool.length) continue
    for (const size of [1024, 4096, 16384]) {
      const t = performance.now()
      const dictionary = trainDictionary(pool.slice(0, samples), { size })
      const ms = performance.now() - t
      const codec = createCodec({ dictionaries: [dictionary] })
      const withIt = held.reduce((n: number, v) => n + codec.encode(v).length, 0)
      lines.push(`| ${name} | ${held.length} | ${Math.round(json / held.length)} | ${(without / json).toFixed(3)}× JSON | ${samples} | ${size} | ${(withIt / json).toFixed(3)}× JSON | ${(withIt / without).toFixed(3)} | ${ms.toFixed(0)} |`)
    }
  }
}
console.log(lines.join('\n'))
