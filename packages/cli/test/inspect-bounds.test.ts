// `inspect` prints and computes a bounded amount for any envelope: a BIGINT of more than 1,024
// bits is shown by its size and hex digits, never converted to decimal whole.
import { createCodec, encode } from '@stowage/core'
import { describe, expect, it } from 'vitest'
import { startCli, type CliResult } from './run-cli.js'

// A guard against a hang, far above what the bound needs (well under a second).
const HANG_GUARD_MS = 20_000

async function inspectWithGuard(bytes: Uint8Array, ...flags: string[]): Promise<CliResult> {
  const { child, finished } = startCli(['inspect', '-', ...flags], bytes)
  const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS)
  try {
    return await finished
  } finally {
    clearTimeout(guard)
  }
}

// Eight BIGINTs of 832,000 bits and one of 900,001 (the codec's limit is 1 MiB of BIGINT in one value): about a
// kilobyte deflated, 2.3 million decimal digits in all.
const huge = Array.from({ length: 8 }, (_, i) => (1n << 832_000n) / 3n + BigInt(i))
const hugeEnvelope = createCodec({ compress: 'always' }).encode({ huge, negative: -(1n << 900_000n), small: 42n, edge: (1n << 1023n) + 1n })

describe('stowage inspect on large BIGINTs', () => {
  it('shows a BIGINT of more than 1,024 bits by its size and first hex digits, in a short report, and smaller ones whole', async () => {
    const { code, stdout, signal } = await inspectWithGuard(hugeEnvelope)
    expect(signal).toBeNull()
    expect(code).toBe(0)
    expect(stdout.length).toBeLessThan(6_000)
    expect(stdout).toContain('[BigInt of 831,999 bits (250,457 digits): 0x5555555555555555…5555]')
    expect(stdout).toContain('[BigInt of 831,999 bits (250,457 digits): 0x5555555555555555…555c]')
    expect(stdout).toContain('negative: [BigInt of 900,001 bits (270,927 digits): -0x1000000000000000…0000]')
    expect(stdout).toContain('small: 42n')
    expect(stdout).toContain(`edge: ${(1n << 1023n) + 1n}n`)
    // The size as JSON is exact all the same (each BIGINT as a string of its digits).
    const jsonBytes = Buffer.byteLength(JSON.stringify({ huge, negative: -(1n << 900_000n), small: 42n, edge: (1n << 1023n) + 1n }, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))
    expect(stdout).toContain(`as JSON         ${jsonBytes.toLocaleString('en-US')} B`)
  })

  it('gives the same bounded form with --json', async () => {
    const { code, stdout, signal } = await inspectWithGuard(hugeEnvelope, '--json')
    expect(signal).toBeNull()
    expect(code).toBe(0)
    expect(stdout.length).toBeLessThan(6_000)
    const report = JSON.parse(stdout)
    expect(report.value.huge[0]).toEqual({ $stowage: 'bigint', bits: 831_999, digits: 250_457, hex: '0x5555555555555555…5555', partial: true })
    expect(report.value.small).toEqual({ $stowage: 'bigint', value: '42' })
  })

  it('bounds an object of many keys as it bounds arrays', async () => {
    const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`key${i}`, i]))
    const { code, stdout } = await inspectWithGuard(encode(wide))
    expect(code).toBe(0)
    expect(stdout).toContain('key99: 99')
    expect(stdout).not.toContain('key100:')
    expect(stdout).toContain('... 4900 more keys')
    expect(stdout.length).toBeLessThan(6_000)
  })
})
