// The memory store (issue 12): does its byte accounting match the memory it really takes, and
// does a bundle of n fields cost O(n) to build? Each value size runs in a fresh child process
// (RSS is per process), with --expose-gc so the heap is collected before each reading.
// Prints Markdown with the targets, and the figures as a line `RESULT <json>`.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createMemoryStore } from '@stowage/core'

const ENTRIES = 100_000
const SIZES = [10, 100, 1_000, 10_000]

interface Reading {
  readonly size: number
  readonly accounted: number
  readonly rss: number
}

// In the child: fill a store with ENTRIES values of `size` bytes and report accounted bytes and RSS growth.
async function child(size: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc as () => void
  gc()
  const before = process.memoryUsage().rss
  const store = createMemoryStore({ maxBytes: 2 ** 40, sweepInterval: 0 })
  for (let i = 0; i < ENTRIES; i++) await store.set(`stowage:user:${i}`, new Uint8Array(size).fill(i & 0xff))
  gc()
  const reading: Reading = { size, accounted: store.byteSize, rss: process.memoryUsage().rss - before }
  console.log(JSON.stringify(reading))
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]))
} else {
  const readings: Reading[] = SIZES.map((size) => {
    const out = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(size)], { encoding: 'utf8' })
    if (out.status !== 0) throw new Error(out.stderr)
    return JSON.parse(out.stdout.trim()) as Reading
  })
  // A bundle of n fields: time per field set, at 1,000 and 16,000 fields (O(n) means equal).
  const perField = async (n: number) => {
    const store = createMemoryStore({ sweepInterval: 0 })
    const value = new Uint8Array(16)
    const started = performance.now()
    for (let i = 0; i < n; i++) await store.setField('bundle', `field-${i}`, value)
    return ((performance.now() - started) * 1000) / n
  }
  const small = await perField(1_000)
  const large = await perField(16_000)
  const worst = Math.max(...readings.map((r) => Math.max(r.rss / r.accounted, r.accounted / r.rss)))
  const lines = [
    `${ENTRIES.toLocaleString('en')} entries per size, keys of ~18 characters, RSS growth after a full GC:`,
    '',
    '| value size | accounted per entry (B) | RSS per entry (B) | RSS ÷ accounted |',
    '|---|---|---|---|',
    ...readings.map((r) => `| ${r.size.toLocaleString('en')} B | ${Math.round(r.accounted / ENTRIES)} | ${Math.round(r.rss / ENTRIES)} | ${(r.rss / r.accounted).toFixed(2)} |`),
    '',
    `A bundle built one field at a time: ${small.toFixed(2)} µs per field at 1,000 fields, ${large.toFixed(2)} µs at 16,000 (${(large / small).toFixed(2)}×; it was O(n²): 33 s for 16,000 fields).`,
    '',
    '| target | measured | |',
    '|---|---|---|',
    `| memory store accounting within 1.5× of RSS, every value size | worst ${worst.toFixed(2)}× | ${worst <= 1.5 ? 'met' : '**missed**'} |`,
    `| bundle fields O(1) each: 16,000 fields ≤ 2× the per-field cost of 1,000 | ${(large / small).toFixed(2)}× | ${large / small <= 2 ? 'met' : '**missed**'} |`,
  ]
  console.log(lines.join('\n'))
  console.log(`RESULT ${JSON.stringify({ readings, perFieldUs: { 1000: small, 16000: large } })}`)
}
