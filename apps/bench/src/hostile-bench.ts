// Small inputs that ask for a lot of work (issue 9, point 6): each is built deterministically and
// handed, in a fresh Node process, to the Node build with default options; the process reports
// how long the call took, what it returned or which error it got, and how much its peak RSS grew.
// Target: every input under 64 KiB refused or decoded in under 100 ms and 64 MB. Prints a Markdown section, then `RESULT {json}`.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { crc32, deflateRawSync } from 'node:zlib'

export const ATTACKS = {
  'RECORDS announcing 63 M rows': 'records',
  '63 M empty objects': 'objects',
  'BIGINT of 63 MiB': 'bigint',
  'BIGINT from a 16 kB envelope': 'bigint16k',
  '16 kB invalidation message of empty objects': 'invalidation',
  'encode: 2^26 paths through shared objects, past maxDepth': 'dag26',
  'encode: 151 objects each referring twice to the next': 'chain151',
  'encode: 2^26 paths within maxDepth (134 M items; beyond the issue list)': 'wide26',
  'deflate stream longer than announced (portable build)': 'toolong',
  'RECORDS nested 45 levels, 1 M rows each (issue 20, item 10)': 'records45',
  '4 Mi empty objects (issue 20, item 11)': 'objects4m',
  '60 BIGINTs of 1 MiB (issue 20, item 12)': 'bigints60',
  'invalidation message of 7 BIGINTs of 1 MiB (issue 20, item 12)': 'invalidationBigints',
  '500 shapes of 32 keys used 8 times each (issue 20, item 13)': 'shapes500',
  '500 shapes of 32 keys used 7 times each (none compiled)': 'shapes500x7',
  '2,000 shapes of 8 keys used 8 times each': 'shapes2000',
  '2,000 shapes of 8 keys used 8 times each, deflated by hand': 'shapes2000deflated',
  '4 Mi strings of 10 chars': 'strings4m',
  '1 Mi empty typed arrays': 'typed1m',
  '1 Mi empty Sets': 'sets1m',
  'DELTA of 4 Mi zeros': 'delta4m',
  'DICT of 1 M objects under one key': 'dict',
  'arrays nested 100 k deep': 'deep',
  'a 15 MiB string (the largest payload a small envelope may inflate to)': 'string15m',
  'W1-1000000 as deflated RECORDS (13 kB, as written before the work budget)': 'w1old',
} as const
type Attack = (typeof ATTACKS)[keyof typeof ATTACKS]

const M63 = 63 * 1024 * 1024
const MI = 1024 * 1024

// A version-2 envelope around `payload`, deflated (CRC over the header and the stored bytes).
function sealDeflated(payload: Uint8Array, announced = payload.length): Uint8Array {
  const stream = deflateRawSync(payload, { level: 9 })
  const out = new Uint8Array(12 + stream.length)
  const view = new DataView(out.buffer)
  out.set([0xc1, 2, 1, 0])
  view.setUint32(4, announced)
  view.setUint32(8, crc32(stream, crc32(out.subarray(0, 8))))
  out.set(stream, 12)
  return out
}

function header(bytes: number[], code: number, n: number): void {
  bytes.push(code, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff)
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts))
}

// An array32 of `n` copies of `item` (MessagePack bytes).
function arrayOfCopies(n: number, item: number[]): Uint8Array {
  const head: number[] = []
  header(head, 0xdd, n)
  const out = new Uint8Array(5 + n * item.length)
  out.set(head)
  for (let i = 0, p = 5; i < n; i++, p += item.length) out.set(item, p)
  return out
}

// An ext32 of `type` around `data`.
function ext32(type: number, data: Uint8Array): Uint8Array {
  const head: number[] = []
  header(head, 0xc9, data.length)
  head.push(type)
  return concat([Uint8Array.from(head), data])
}

// RECORDS data [n, ["a"], column]: one key, one column.
function records(n: number, column: Uint8Array): Uint8Array {
  return ext32(73, concat([Uint8Array.from([0x93, 0xce, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff, 0x91, 0xa1, 0x61]), column]))
}

// `count` shapes of `keys` keys, each object used `uses` times, written by Stowage itself.
function shapes(count: number, keys: number, uses: number): unknown[] {
  const out: unknown[] = []
  for (let u = 0; u < uses; u++) {
    for (let s = 0; s < count; s++) out.push(Object.fromEntries(Array.from({ length: keys }, (_, k) => [`s${s}k${k}`, k])))
  }
  return out
}

/** The input of one attack: envelope bytes to decode, or a value to encode. */
export async function input(attack: Attack): Promise<{ bytes?: Uint8Array; value?: unknown; platform?: 'portable' }> {
  switch (attack) {
    case 'records45': {
      let payload = arrayOfCopies(1_000_000, [0])
      for (let level = 0; level < 45; level++) payload = records(1_000_000, payload)
      return { bytes: sealDeflated(payload) }
    }
    case 'objects4m':
      return { bytes: sealDeflated(arrayOfCopies(4 * MI, [0x80])) }
    case 'bigints60':
    case 'invalidationBigints': {
      const one = new Uint8Array(MI + 1).fill(0x5a)
      one[0] = 0
      const big = Array.from(ext32(65, one))
      return { bytes: sealDeflated(arrayOfCopies(attack === 'bigints60' ? 60 : 7, big)) }
    }
    case 'shapes500':
    case 'shapes500x7':
    case 'shapes2000': {
      const { encode } = await import('@stowage/core')
      return { bytes: encode(attack === 'shapes2000' ? shapes(2000, 8, 8) : shapes(500, 32, attack === 'shapes500' ? 8 : 7)) }
    }
    case 'shapes2000deflated': {
      const { createCodec } = await import('@stowage/core')
      return { bytes: sealDeflated(createCodec({ compress: 'never' }).encode(shapes(2000, 8, 8)).subarray(8)) }
    }
    case 'strings4m':
      return { bytes: sealDeflated(arrayOfCopies(4 * MI, [0xaa, ...Array.from('abcdefghij', (c) => c.charCodeAt(0))])) }
    case 'typed1m':
      return { bytes: sealDeflated(arrayOfCopies(MI, [0xd4, 69, 1])) }
    case 'sets1m':
      return { bytes: sealDeflated(arrayOfCopies(MI, [0xd4, 68, 0x90])) }
    case 'delta4m':
      return { bytes: sealDeflated(ext32(74, arrayOfCopies(4 * MI - 16, [0]))) }
    case 'dict':
      return { bytes: sealDeflated(ext32(75, concat([Uint8Array.from([0x92]), arrayOfCopies(1_000_000, [0xa1, 0x61]), records(1_000_000, arrayOfCopies(1_000_000, [0]))]))) }
    case 'string15m': {
      const n = 15 * MI
      const head: number[] = []
      header(head, 0xdb, n)
      const payload = new Uint8Array(5 + n).fill(0x78)
      payload.set(head)
      return { bytes: sealDeflated(payload) }
    }
    case 'deep': {
      const payload = new Uint8Array(100_000).fill(0x91)
      payload[payload.length - 1] = 0xc0
      return { bytes: sealDeflated(payload) }
    }
    case 'w1old': {
      const { createCodec } = await import('@stowage/core')
      const rows = Array.from({ length: 1_000_000 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))
      const payload = createCodec({ compress: 'never', maxWorkPerByte: 2 ** 32 }).encode(rows).subarray(8)
      return { bytes: sealDeflated(payload) }
    }
    case 'records': {
      // ext32 RECORDS: [n = 63 M, ["a"], column of 63 M zeros]
      const n = M63
      const head: number[] = []
      header(head, 0xc9, 0) // ext length patched below
      head.push(73, 0x93, 0xce, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff, 0x91, 0xa1, 0x61)
      header(head, 0xdd, n)
      const payload = new Uint8Array(head.length + n)
      payload.set(head)
      new DataView(payload.buffer).setUint32(1, payload.length - 6)
      return { bytes: sealDeflated(payload) }
    }
    case 'objects': {
      const n = M63
      const payload = new Uint8Array(5 + n).fill(0x80)
      const head: number[] = []
      header(head, 0xdd, n)
      payload.set(head)
      return { bytes: sealDeflated(payload) }
    }
    case 'bigint':
    case 'bigint16k': {
      const magnitude = attack === 'bigint' ? M63 : 16 * 1024 * 1024
      const payload = new Uint8Array(7 + magnitude).fill(0x5a)
      const head: number[] = []
      header(head, 0xc9, magnitude + 1)
      head.push(65, 0)
      payload.set(head)
      return { bytes: sealDeflated(payload) }
    }
    case 'invalidation': {
      const n = 16 * 1024 * 1024
      const payload = new Uint8Array(5 + n).fill(0x80)
      const head: number[] = []
      header(head, 0xdd, n)
      payload.set(head)
      return { bytes: sealDeflated(payload) }
    }
    case 'dag26': {
      // 26 levels that each refer twice to the level below, under a chain of 80: deeper than maxDepth (100).
      let v: Record<string, unknown> = { leaf: true }
      for (let i = 0; i < 26; i++) v = { a: v, b: v }
      for (let i = 0; i < 80; i++) v = { next: v }
      return { value: v }
    }
    case 'wide26': {
      let v: Record<string, unknown> = { leaf: true }
      for (let i = 0; i < 26; i++) v = { a: v, b: v }
      return { value: v }
    }
    case 'chain151': {
      let v: Record<string, unknown> = { leaf: true }
      for (let i = 0; i < 151; i++) v = { a: v, b: v }
      return { value: v }
    }
    case 'toolong': {
      // A 1 KiB payload announced, a stream that inflates to 32 MiB of the same byte.
      const payload = new Uint8Array(32 * 1024 * 1024).fill(0xc0)
      return { bytes: sealDeflated(payload, 1024), platform: 'portable' }
    }
  }
}

// In the child: read the envelope the parent built (or build the small value to encode), settle
// memory, then time the one call under test.
async function child(attack: Attack, file: string): Promise<void> {
  const { createCodec, decodeInvalidation, encode, INVALIDATION_CODEC_OPTIONS } = await import('@stowage/core')
  const { createCodecWith } = await import('../../../packages/core/src/codec/codec.js')
  const { platform } = await import('../../../packages/core/src/codec/platform/portable.js')
  const which = attack === 'toolong' ? 'portable' : undefined
  const value = attack === 'dag26' || attack === 'chain151' || attack === 'wide26' ? (await input(attack)).value : undefined
  const bytes = value === undefined ? new Uint8Array(readFileSync(file)) : undefined
  const codec = which === 'portable' ? createCodecWith(platform) : createCodec()
  const messages = createCodec(INVALIDATION_CODEC_OPTIONS)
  ;(globalThis as { gc?: () => void }).gc?.()
  const rssBefore = process.memoryUsage().rss
  const peakBefore = process.resourceUsage().maxRSS * 1024
  const started = performance.now()
  let outcome: string
  try {
    if (attack === 'invalidation' || attack === 'invalidationBigints') outcome = decodeInvalidation(messages, bytes as Uint8Array) === undefined ? 'ignored' : 'returned a message'
    else if (value !== undefined) outcome = `returned ${encode(value).length} bytes`
    else outcome = `returned ${typeof codec.decode(bytes as Uint8Array)}`
  } catch (e) {
    outcome = (e as { code?: string }).code ?? `threw ${String(e)}`
  }
  const ms = performance.now() - started
  const grown = Math.max(0, process.resourceUsage().maxRSS * 1024 - Math.max(peakBefore, rssBefore))
  process.stdout.write(JSON.stringify({ ms, outcome, mb: grown / 1e6, input: bytes?.length }))
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] as Attack, process.argv[4] as string)
} else {
  const dir = mkdtempSync(join(tmpdir(), 'stowage-hostile-'))
  const rows: Array<{ name: string; ms: number; outcome: string; mb: number; input?: number }> = []
  const only = process.argv.slice(2)
  for (const [name, attack] of Object.entries(ATTACKS)) {
    if (only.length > 0 && !only.includes(attack)) continue
    let result: { ms: number; outcome: string; mb: number; input?: number }
    const file = join(dir, attack)
    const { bytes } = await input(attack)
    writeFileSync(file, bytes ?? new Uint8Array(0))
    try {
      const out = execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', attack, file], {
        encoding: 'utf8',
        timeout: 120_000,
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 1 << 20,
      })
      result = JSON.parse(out)
    } catch (e) {
      const killed = (e as { signal?: string }).signal
      result = { ms: Number.NaN, outcome: killed ? `killed (${killed}: timed out or out of memory)` : 'crashed', mb: Number.NaN }
    }
    rows.push({ name, ...result })
  }
  rmSync(dir, { recursive: true, force: true })
  // Refused or decoded within the target both count; the target is for inputs under 64 KiB.
  const ok = (r: (typeof rows)[number]) => r.ms < 100 && r.mb < 64 && !r.outcome.startsWith('threw') && !r.outcome.startsWith('killed') && r.outcome !== 'crashed'
  const verdict = (r: (typeof rows)[number]) => ((r.input ?? 0) >= 64 * 1024 ? `n/a (over 64 KiB), ${ok(r) ? 'met' : 'missed'}` : ok(r) ? 'met' : '**missed**')
  console.log(
    [
      'Each input built deterministically by the parent, then given, in a fresh Node process with default options, to the Node build (the portable build where named). Time and peak RSS growth of that one call.',
      '',
      '| input | envelope bytes | result | ms | MB | < 100 ms and < 64 MB |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.name} | ${r.input?.toLocaleString('en') ?? 'a value'} | ${r.outcome} | ${r.ms.toFixed(1)} | ${r.mb.toFixed(1)} | ${verdict(r)} |`),
    ].join('\n'),
  )
  console.log(`RESULT ${JSON.stringify(rows.map((r) => ({ ...r, met: (r.input ?? 0) >= 64 * 1024 || ok(r) })))}`)
}
