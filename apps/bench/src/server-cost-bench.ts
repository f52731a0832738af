// Cheap requests and messages that once stalled a server or a subscriber (issue 24, items 7–10),
// each timed on the event loop of this process and with what it leaves on the heap (after a full
// GC) against a baseline taken just before. Target: every input under 64 KiB costs < 10 ms of
// event-loop time and < 16 MB retained. Run with --expose-gc. Prints Markdown and a RESULT line.
import { createCache, createCodec, encodeInvalidation, INVALIDATION_CODEC_OPTIONS, MAX_KEYS_PER_MESSAGE, type Cache, type InvalidationChannel, type InvalidationMessage } from '@stowage/core'
import { envelopeResponse } from '@stowage/http'

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('server-cost-bench: run with node --expose-gc')
const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

interface Row {
  readonly name: string
  readonly input: number
  readonly first: number
  readonly each: number
  readonly mb: number
}
const rows: Row[] = []

/** Runs `once` `times` times after a baseline heap; the first call's time, the median of the rest, and what is retained. */
async function measure(name: string, input: number, times: number, once: () => Promise<unknown> | unknown, keep?: () => unknown): Promise<void> {
  const before = heap()
  const ms: number[] = []
  for (let i = 0; i < times; i++) {
    const t = performance.now()
    await once()
    ms.push(performance.now() - t)
  }
  const retained = heap() - before
  void keep?.()
  rows.push({ name, input, first: ms[0] as number, each: median(ms.slice(1)), mb: retained / 1e6 })
}

// Item 7: the README's rows, 100,000 of them: a small envelope whose JSON is megabytes.
{
  const codec = createCodec()
  const rows = (offset: number) => Array.from({ length: 100_000 }, (_, i) => ({ index: i + offset, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
  const bytes = codec.encode(rows(0))
  for (const method of ['GET', 'HEAD']) {
    const request = { method, headers: new Headers({ Accept: 'application/json' }) }
    await measure(`serveCached, ${method} with Accept: application/json of 100,000 rows (JSON 6.7 MB)`, bytes.length, 20, async () => {
      const response = await envelopeResponse(request, bytes, { codec })
      await response.arrayBuffer()
    })
  }
  // Each request for another such envelope: its one decode, with the code warm.
  const others = Array.from({ length: 21 }, (_, i) => codec.encode(rows(i + 1)))
  let next = 0
  const get = { method: 'GET', headers: new Headers({ Accept: 'application/json' }) }
  await measure('serveCached, GET with Accept: application/json, each time another envelope of 100,000 rows', bytes.length, others.length, async () => {
    const response = await envelopeResponse(get, others[next++]!, { codec })
    await response.arrayBuffer()
  })
}

// The strong ETag is a SHA-256 of the envelope (WebCrypto), computed on every response: what it
// costs a 200 and a 304 of envelopes from 8 KiB to 16 MiB (a binary value: nothing to compress).
{
  const codec = createCodec({ compress: 'never' })
  for (const size of [8 * 1024, 1024 * 1024, 16 * 1024 * 1024]) {
    const value = new Uint8Array(size)
    for (let i = 0; i < size; i++) value[i] = (i * 2654435761) >>> 24
    const bytes = codec.encode(value)
    const etag = (await envelopeResponse({ method: 'GET', headers: new Headers() }, bytes, { codec })).headers.get('ETag')!
    const label = size < 1024 * 1024 ? `${size / 1024} KiB` : `${size / 1024 / 1024} MiB`
    await measure(`serveCached, GET of a ${label} envelope (its SHA-256 ETag), 200`, bytes.length, 21, async () => {
      const response = await envelopeResponse({ method: 'GET', headers: new Headers() }, bytes, { codec })
      await response.arrayBuffer()
    })
    await measure(`serveCached, GET of a ${label} envelope, If-None-Match its ETag: 304`, bytes.length, 21, async () => {
      await envelopeResponse({ method: 'GET', headers: new Headers({ 'If-None-Match': etag }) }, bytes, { codec })
    })
  }
}

/** A channel whose messages this process sends itself, as another process would publish them. */
function handChannel() {
  const codec = createCodec(INVALIDATION_CODEC_OPTIONS)
  const listeners: Array<(message: Uint8Array) => void> = []
  const channel: InvalidationChannel = {
    async publish() {},
    subscribe(listener) {
      listeners.push(listener)
      return () => void listeners.splice(listeners.indexOf(listener), 1)
    },
  }
  const message = (op: InvalidationMessage['op'], keys: readonly string[]) => encodeInvalidation(codec, { origin: 'another-process', op, keys })
  const send = (bytes: Uint8Array) => {
    for (const listener of listeners) listener(bytes)
  }
  return { channel, message, send }
}
const madeUp = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}${i}:${'x'.repeat(64)}`)

// Items 8 and 9: a subscriber with 10,000 local copies gets messages of made-up tags and of
// another application's prefixes.
{
  const { channel, message, send } = handChannel()
  const cache = createCache({ namespace: 'app', local: { ttl: 600_000 }, invalidation: channel }) as Cache
  await cache.setMany(Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: i, tags: [`t${i}`] })))
  const tags = Array.from({ length: 10 }, (_, i) => message('tag', madeUp(MAX_KEYS_PER_MESSAGE, `app:#tag:made-up${i}:`)))
  let n = 0
  await measure(`a tag message of ${MAX_KEYS_PER_MESSAGE.toLocaleString('en')} made-up tags (10 of them)`, tags[0]!.length, tags.length, () => send(tags[n++]!), () => cache)
  const clears = Array.from({ length: 10 }, (_, i) => message('clear', madeUp(MAX_KEYS_PER_MESSAGE, `other${i}:`)))
  n = 0
  await measure(`a clear message of ${MAX_KEYS_PER_MESSAGE.toLocaleString('en')} foreign prefixes, 10,000 local copies (10 of them)`, clears[0]!.length, clears.length, () => send(clears[n++]!), () => cache)
  if ((await cache.get('k1')) !== 1) throw new Error('server-cost-bench: the local copies were lost')
}

// Item 10: schema key patterns and a 14 kB key.
{
  const pass = { '~standard': { version: 1 as const, vendor: 'bench', validate: (value: unknown) => ({ value }) } }
  const cache = createCache({ namespace: 's', schemas: { 'org:*:team:*:member:*:profile': pass, 'org:*:team:*:member:*:settings': pass, 'user:*': pass } }) as unknown as Cache
  const key = `org:${'a:team:'.repeat(2000)}x`
  await measure('a read of a 14 kB key against 3 glob schemas', key.length, 20, () => cache.get(key))
}

const within = (r: Row) => Math.max(r.first, r.each) < 10 && r.mb < 16
// The target is for inputs under 64 KiB; larger ones are shown for what they cost.
const ok = (r: Row) => r.input >= 64 * 1024 || within(r)
const verdict = (r: Row) => (r.input >= 64 * 1024 ? `n/a (over 64 KiB), ${within(r) ? 'met' : 'missed'}` : within(r) ? 'met' : '**missed**')
console.log(
  [
    `Node ${process.version}, in this process: the first call's event-loop time, the median of the others, and the heap they leave behind (after a full GC, against a baseline taken just before).`,
    '',
    '| input | bytes | first ms | then ms (median) | retained MB | < 10 ms and < 16 MB |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.name} | ${r.input.toLocaleString('en')} | ${r.first.toFixed(2)} | ${r.each.toFixed(3)} | ${r.mb.toFixed(1)} | ${verdict(r)} |`),
  ].join('\n'),
)
console.log(`RESULT ${JSON.stringify(rows.map((r) => [r.name, Math.max(r.first, r.each), ok(r)]))}`)
