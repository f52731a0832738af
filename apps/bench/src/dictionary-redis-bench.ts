// Dictionaries that manage themselves, measured through a real Redis (issue 19): small real values
// (emojibase rows, GitHub users from the webhook examples, 0.3–2 kB of JSON) stored as JSON strings,
// as Stowage envelopes and as envelopes with a dictionary trained on other values of the kind;
// set + get through a Cache with and without a dictionary; training time; and a rotation under
// load: writers with `autoDictionary` and readers never given a dictionary, the kind of values
// changed midway so that the writers train again. Its own redis-server. Prints Markdown and a
// `RESULT {json}` line.
import { createCache, createCodec, inspect, trainDictionary } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { startRedisServer } from '@stowage/redis-server'
import { Redis } from 'ioredis'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { emojis, webhookPayloads } from './real-data.js'

function distinct(values: unknown[]): unknown[] {
  const seen = new Set<string>()
  return values.filter((v) => {
    const j = JSON.stringify(v)
    if (v === undefined || v === null || seen.has(j)) return false
    seen.add(j)
    return true
  })
}
const hooks = webhookPayloads() as Array<Record<string, unknown>>
const kinds: Array<[string, unknown[]]> = [
  ['emojibase rows', emojis() as unknown[]],
  ['GitHub users (webhook senders and owners)', distinct(hooks.flatMap((h) => [h.sender, (h.repository as Record<string, unknown> | undefined)?.owner]))],
]

const server = await startRedisServer()
const client = new Redis(server.url)
const lines: string[] = []
const result: Record<string, unknown> = {}
const f = (n: number, d = 3) => n.toFixed(d)

// 1. Bytes and Redis memory per key.
lines.push('### Small real values through Redis', '', 'Each value under its own key; `MEMORY USAGE` per key (its overhead included); the dictionary (4 KiB) trained on the other half of the values of the kind.', '')
lines.push('| values | n | JSON B (mean) | memory: JSON string | Stowage | ×JSON | with a dictionary | ×JSON | value bytes with it ×JSON |', '|---|---|---|---|---|---|---|---|---|')
for (const [name, values] of kinds) {
  const small = values.filter((v) => {
    const n = JSON.stringify(v).length
    return n >= 300 && n <= 2000
  })
  const half = Math.floor(small.length / 2)
  const train = small.slice(0, half)
  const held = small.slice(half, half + 500)
  const dictionary = trainDictionary(train, { size: 4096 })
  const plain = createCodec()
  const withIt = createCodec({ dictionaries: [dictionary] })
  let json = 0
  let dictBytes = 0
  const memory = { json: 0, plain: 0, dict: 0 }
  for (const [i, v] of held.entries()) {
    const text = JSON.stringify(v)
    json += Buffer.byteLength(text)
    const d = withIt.encode(v)
    dictBytes += d.length
    await client.set(`j:${i}`, text)
    await client.set(`p:${i}`, Buffer.from(plain.encode(v)))
    await client.set(`d:${i}`, Buffer.from(d))
    memory.json += (await client.memory('USAGE', `j:${i}`)) as number
    memory.plain += (await client.memory('USAGE', `p:${i}`)) as number
    memory.dict += (await client.memory('USAGE', `d:${i}`)) as number
  }
  await client.flushdb()
  result[name] = { memoryRatio: memory.dict / memory.json, valueRatio: dictBytes / json }
  lines.push(`| ${name} | ${held.length} | ${Math.round(json / held.length)} | ${Math.round(memory.json / held.length)} B | ${Math.round(memory.plain / held.length)} B | ${f(memory.plain / memory.json)} | ${Math.round(memory.dict / held.length)} B | ${f(memory.dict / memory.json)} | ${f(dictBytes / json)} |`)
}

// 2. set + get through a Cache, with and without a dictionary (GitHub users, ~0.9 kB), alternating rounds.
const users = kinds[1]![1]
const dictionary = trainDictionary(users.slice(0, -5), { size: 4096 })
const store = createRedisStore({ client })
const caches = { without: createCache({ store, namespace: 'plain', local: false }), with: createCache({ store, namespace: 'dict', local: false, codec: { dictionaries: [dictionary] } }) }
const opsPerSecond: Record<string, number[]> = { without: [], with: [] }
for (let round = 0; round < 6; round++) {
  for (const name of round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
    const cache = caches[name]
    const started = performance.now()
    let n = 0
    while (performance.now() - started < 1000) {
      const v = users[n % users.length]
      await cache.set(`k${n % 1000}`, v)
      await cache.get(`k${n % 1000}`)
      n++
    }
    opsPerSecond[name]!.push(n / ((performance.now() - started) / 1000))
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const user = users[users.length - 1]
const codecs = { without: createCodec(), with: createCodec({ dictionaries: [dictionary] }) }
const encodeUs = (codec: ReturnType<typeof createCodec>) => {
  for (let i = 0; i < 2000; i++) codec.encode(user)
  const samples: number[] = []
  for (let r = 0; r < 9; r++) {
    const t = performance.now()
    for (let i = 0; i < 2000; i++) codec.encode(user)
    samples.push(((performance.now() - t) / 2000) * 1000)
  }
  return median(samples)
}
const enc = { without: encodeUs(codecs.without), with: encodeUs(codecs.with) }
const trainStart = performance.now()
trainDictionary(Array.from({ length: 1000 }, (_, i) => (emojis() as unknown[])[i]), { size: 4096 })
const trainMs = performance.now() - trainStart
result.setGet = median(opsPerSecond.with!) / median(opsPerSecond.without!)
result.encode = enc.with / enc.without
result.trainMs = trainMs
lines.push(
  '',
  '### Cost',
  '',
  '| measure | without a dictionary | with one (4 KiB) | ratio |',
  '|---|---|---|---|',
  `| set + get through a Cache over Redis (local tier off), a GitHub user of ${JSON.stringify(user).length} B of JSON, pairs/s (median of 3 alternating 1 s rounds) | ${Math.round(median(opsPerSecond.without!))} | ${Math.round(median(opsPerSecond.with!))} | ${f(result.setGet as number, 2)}× |`,
  `| encode of that user, µs | ${f(enc.without, 2)} | ${f(enc.with, 2)} | ${f(result.encode as number, 2)}× |`,
  `| trainDictionary on 1,000 emojibase rows, 4 KiB | — | ${trainMs.toFixed(0)} ms | — |`,
)
await client.flushdb()

// 3. Rotation under load: two writers with autoDictionary, four readers never given a dictionary,
// each a cache over a client of its own (as processes are); midway the values change kind.
const ROTATION_MS = Number(process.env.ROTATION_MS ?? 60_000)
const clients = Array.from({ length: 6 }, () => new Redis(server.url))
const writers = clients.slice(0, 2).map((c) => createCache({ store: createRedisStore({ client: c }), namespace: 'rot', local: false, autoDictionary: { samples: 100, checkEvery: 200 } }))
const readers = clients.slice(2).map((c) => createCache({ store: createRedisStore({ client: c }), namespace: 'rot', local: false }))
const emojiRows = emojis() as unknown[]
const written = new Map<string, string>()
let changed = false
const stats = { writes: 0, reads: 0, misses: 0, missesByDictionary: 0, wrong: 0, errors: 0 }
for (const r of readers) r.on('miss', (m) => m.reason === 'unsupported' && stats.missesByDictionary++)
for (const w of [...writers, ...readers]) w.on('error', (e) => e.operation !== 'get' && stats.errors++)
const deadline = Date.now() + ROTATION_MS
const valueFor = (i: number) => (changed ? users[i % users.length] : emojiRows[i % emojiRows.length])
setTimeout(() => (changed = true), ROTATION_MS / 2)
await Promise.all([
  ...writers.map(async (w, wi) => {
    for (let i = wi; Date.now() < deadline; i += 2) {
      const key = `k${i % 2000}`
      const value = valueFor(i)
      await w.set(key, value)
      written.set(key, JSON.stringify(value))
      stats.writes++
    }
  }),
  ...readers.map(async (r, ri) => {
    for (let i = ri; Date.now() < deadline; i += 7) {
      const key = `k${i % 2000}`
      const expected = written.get(key)
      if (expected === undefined) {
        await new Promise((res) => setTimeout(res, 1))
        continue
      }
      const got = await r.get(key)
      stats.reads++
      if (got === undefined) stats.misses++
      // A value read while a writer replaces it may be the previous one: a wrong value is one no writer wrote.
      else if (JSON.stringify(got) !== expected && !emojiRows.concat(users).some((v) => JSON.stringify(v) === JSON.stringify(got))) stats.wrong++
    }
  }),
])
const dictionaries = (await client.keys('#dict:*')).length
const ids = new Set<number>()
for (const key of (await client.keys('rot:*')).slice(0, 2000)) {
  const id = inspect((await client.getBuffer(key))!).dictionaryId
  if (id !== undefined) ids.add(id)
}
result.rotation = { ...stats, dictionaries }
lines.push(
  '',
  `### Rotation under load (${ROTATION_MS / 1000} s)`,
  '',
  `Two writers with \`autoDictionary\` (100 samples, drift checked every 200 writes) and four readers given no dictionary, each a cache over a Redis client of its own, on 2,000 keys; the values are emojibase rows, then GitHub users from the midpoint on, so that the writers train again. A miss is a key read while no value was there yet or after a writer's failed write; a wrong value is one no writer wrote.`,
  '',
  '| writes | reads | misses | misses for a dictionary | wrong values | errors | dictionaries stored | dictionaries named by the last values |',
  '|---|---|---|---|---|---|---|---|',
  `| ${stats.writes} | ${stats.reads} | ${stats.misses} | ${stats.missesByDictionary} | ${stats.wrong} | ${stats.errors} | ${dictionaries} | ${ids.size} |`,
)
for (const c of clients) c.disconnect()
await client.flushdb()

// 4. What `stowage scan` estimates with a dictionary, against what `stowage train` + `convert --dictionary` then do.
const cli = fileURLToPath(new URL('../../../packages/cli/dist/cli.js', import.meta.url))
const stowage = (...args: string[]) => JSON.parse(execFileSync(process.execPath, [cli, ...args, '--json'], { encoding: 'utf8' })) as Record<string, any>
const rows = emojiRows.slice(0, 3000)
let jsonTotal = 0
const fill = client.pipeline()
rows.forEach((v, i) => {
  const text = JSON.stringify(v)
  jsonTotal += Buffer.byteLength(text)
  fill.set(`e:${i}`, text)
})
await fill.exec()
const scanned = stowage('scan', server.url, '--match', 'e:*', '--sample', '400').jsonEstimate.withDictionary
const trained = stowage('train', server.url, '--match', 'e:*')
stowage('convert', server.url, '--match', 'e:*', '--dictionary', trained.dictionary.id)
let after = 0
for (let i = 0; i < rows.length; i++) after += (await client.strlen(`e:${i}`)) as number
const achieved = after / jsonTotal
result.scanEstimate = { estimated: scanned.ratio, achieved }
lines.push(
  '',
  '### `stowage scan`\'s estimate with a dictionary against `convert --dictionary`',
  '',
  `${rows.length} emojibase rows as JSON strings: \`scan --sample 400\` estimated ${f(scanned.ratio)}× JSON with a dictionary trained on its sample; \`train\` then \`convert --dictionary\` took them to ${f(achieved)}× (${f(scanned.ratio / achieved, 2)}× the estimate's ratio to what was achieved).`,
)
client.disconnect()
await server.stop()
console.log(lines.join('\n'))
console.log(`RESULT ${JSON.stringify(result)}`)
