// Small inputs that ask for a lot of work (issue 9, point 6): each is built deterministically and
// handed, in a fresh Node process, to the Node build with default options; the process reports
// how long the refusal took, which error it got and how much its peak RSS grew. Target: every one
// refused in under 100 ms and 64 MB. Prints a Markdown section, then `RESULT {json}`.
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
} as const
type Attack = (typeof ATTACKS)[keyof typeof ATTACKS]

const M63 = 63 * 1024 * 1024

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

/** The input of one attack: envelope bytes to decode, or a value to encode. */
export function input(attack: Attack): { bytes?: Uint8Array; value?: unknown; platform?: 'portable' } {
  switch (attack) {
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
  const value = attack === 'dag26' || attack === 'chain151' || attack === 'wide26' ? input(attack).value : undefined
  const bytes = value === undefined ? new Uint8Array(readFileSync(file)) : undefined
  const codec = which === 'portable' ? createCodecWith(platform) : createCodec()
  const messages = createCodec(INVALIDATION_CODEC_OPTIONS)
  ;(globalThis as { gc?: () => void }).gc?.()
  const rssBefore = process.memoryUsage().rss
  const peakBefore = process.resourceUsage().maxRSS * 1024
  const started = performance.now()
  let outcome: string
  try {
    if (attack === 'invalidation') outcome = decodeInvalidation(messages, bytes as Uint8Array) === undefined ? 'ignored' : 'returned a message'
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
  for (const [name, attack] of Object.entries(ATTACKS)) {
    let result: { ms: number; outcome: string; mb: number; input?: number }
    const file = join(dir, attack)
    const { bytes } = input(attack)
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
  const ok = (r: (typeof rows)[number]) => r.ms < 100 && r.mb < 64 && !r.outcome.startsWith('returned') && !r.outcome.startsWith('threw')
  console.log(
    [
      'Each input built deterministically by the parent, then given, in a fresh Node process with default options, to the Node build (the portable build where named). Time and peak RSS growth of that one call.',
      '',
      '| input | envelope bytes | result | ms | MB | < 100 ms and < 64 MB |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.name} | ${r.input?.toLocaleString('en') ?? 'a value'} | ${r.outcome} | ${r.ms.toFixed(1)} | ${r.mb.toFixed(1)} | ${ok(r) ? 'met' : '**missed**'} |`),
    ].join('\n'),
  )
  console.log(`RESULT ${JSON.stringify(rows.map((r) => ({ ...r, met: ok(r) })))}`)
}
