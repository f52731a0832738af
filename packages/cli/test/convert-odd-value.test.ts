// One value the codec refuses is refused alone, with the codec's reason; the run goes on.
import { decode } from '@stowage/core'
import { describe, expect, inject, it } from 'vitest'
import { redisClient, runCli, uniquePrefix } from './run-cli.js'

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

describe('stowage convert with a value the codec refuses', () => {
  it('leaves a 150-deep, a 2,000-deep and a 100,000-deep array as JSON with LIMIT_EXCEEDED, converts the rest of the batch, and says the same on a rerun', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert-odd')
    await client.set(`${p}deep:150`, nested(150))
    await client.set(`${p}deep:2000`, nested(2000))
    await client.set(`${p}deep:100000`, nested(100_000))
    for (let i = 0; i < 10; i++) await client.set(`${p}ok:${i}`, JSON.stringify({ i }))

    for (const run of [1, 2]) {
      const { code, stdout, stderr } = await runCli(['convert', url, '--match', `${p}*`, '--batch', '100', '--json'])
      expect(stderr).toBe('')
      expect(code).toBe(0)
      const report = JSON.parse(stdout)
      expect(report).toMatchObject({ end: 'complete', scanned: 13, converted: run === 1 ? 10 : 0, alreadyStowage: run === 1 ? 0 : 10, keptAsJson: 3 })
      for (const { reason } of report.keptAsJsonKeys) expect(reason).toMatch(/^LIMIT_EXCEEDED: the value is nested deeper than maxDepth \(100\)/)
    }
    expect(await client.get(`${p}deep:150`)).toBe(nested(150))
    expect(await client.get(`${p}deep:2000`)).toBe(nested(2000))
    expect(decode((await client.getBuffer(`${p}ok:7`))!)).toEqual({ i: 7 })

    const text = await runCli(['convert', url, '--match', `${p}deep:*`])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/: complete\n/)
    expect(text.stdout).not.toContain('REDIS')
    // The path in the codec's message is cut, not 2,000 levels long.
    for (const line of text.stdout.split('\n')) expect(line.length).toBeLessThan(400)
  })
})
