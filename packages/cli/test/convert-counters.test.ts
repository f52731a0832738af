// Values Redis commands work on (counters) are left alone: after convert, INCR still works on them.
import { describe, expect, inject, it } from 'vitest'
import { redisClient, runCli, uniquePrefix } from './run-cli.js'

const INTEGERS = ['42', '-7', '0', '9223372036854775806', '-9223372036854775808']
const FLOATS = ['3.5', '-0', '1e3', '9223372036854775808']

describe('stowage convert and counters', () => {
  it('skips integers INCR works on and numbers INCRBYFLOAT works on, says so, and INCR still works after the run', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert-counters')
    for (const [i, n] of INTEGERS.entries()) await client.set(`${p}int:${i}`, n)
    for (const [i, n] of FLOATS.entries()) await client.set(`${p}float:${i}`, n)
    await client.set(`${p}json`, '{"count":42}')

    const { code, stdout } = await runCli(['convert', url, '--match', `${p}*`, '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ scanned: 10, converted: 1, counters: 9, keptAsJson: 0, invalid: 0 })
    for (const [i, n] of INTEGERS.entries()) expect(await client.get(`${p}int:${i}`)).toBe(n)
    for (const [i, n] of FLOATS.entries()) expect(await client.get(`${p}float:${i}`)).toBe(n)
    expect(await client.incr(`${p}int:0`)).toBe(43)
    expect(await client.incrby(`${p}int:3`, 1)).toBe(9223372036854775807)
    expect(await client.incrbyfloat(`${p}float:0`, 1)).toBe('4.5')

    const text = await runCli(['convert', url, '--match', `${p}*`])
    expect(text.stdout).toMatch(/counters\s+9 \(skipped: numbers that INCR, INCRBY or INCRBYFLOAT work on, left as they are\)/)
  })
})
