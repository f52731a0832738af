// `convert` never changes what a value means to any reader: JSON whose numbers a double cannot
// hold exactly, or whose objects repeat a key, is left as it is and listed with the reason.
import { decode } from '@stowage/core'
import { describe, expect, inject, it } from 'vitest'
import { jsonMeaningChange } from '../src/convert/json-meaning.js'
import { redisClient, runCli, uniquePrefix } from './run-cli.js'

// Each is valid JSON that JSON.parse reads as something else than its text says, or that readers
// would read differently after conversion; the reason convert gives must say so.
const CHANGED = {
  big: ['{"id": 12345678901234567890}', /\$\.id: the integer 12345678901234567890 is beyond 2\^53 .*JSON\.parse reads it as 12345678901234567000/],
  bigByOne: ['{"id":9007199254740993}', /\$\.id: the integer 9007199254740993 is beyond 2\^53 .*JSON\.parse reads it as 9007199254740992/],
  exactButBig: ['[9007199254740992]', /\$\[0\]: the integer 9007199254740992 is beyond 2\^53 .*stored as a float/],
  negativeBig: ['{"a":[1,{"b":-12345678901234567890}]}', /\$\.a\[1\]\.b: the integer -12345678901234567890 is beyond 2\^53/],
  infinity: ['[1e400]', /\$\[0\]: the number 1e400 is beyond the largest double: JSON\.parse reads it as Infinity/],
  tiny: ['[1e-400]', /\$\[0\]: the number 1e-400 is nearer to 0 than the smallest double: JSON\.parse reads it as 0/],
  digits: ['{"x":1.0000000000000000001}', /\$\.x: the number 1\.0000000000000000001 has more digits than a double keeps: JSON\.parse reads it as 1/],
  floatSpelled: ['{"price":10.0}', /\$\.price: the number 10\.0 would be stored as the integer 10/],
  minusZero: ['[-0]', /\$\[0\]: -0 is the integer 0 to most JSON readers/],
  duplicate: ['{"a":1,"b":{"k":1,"\\u006b":2}}', /\$\.b: the key "k" appears twice: JSON\.parse keeps the last, other readers the first/],
} as const

// Valid JSON that every reader reads the same way before and after: converted, and decoded back
// to exactly what JSON.parse reads.
const KEPT = {
  shortest: '{"f":0.1,"g":-2.5e-7,"h":1e+300,"i":1.7976931348623157e308,"max":9007199254740991,"min":-9007199254740991}',
  floats: '[0.30000000000000004, 1.5, -0.0, 1e21, 5e-324, 12.99, 0.000000000000001, -123456789.012345]',
  proto: '{"__proto__":{"x":1},"a":"\\ud800 lone surrogate kept"}',
  keysApart: '[{"a":1},{"a":2},{"b":{"a":3}}]',
} as const

describe('stowage convert keeps what values mean', () => {
  it('leaves JSON whose numbers a double cannot hold exactly, or whose objects repeat a key, as it is, and lists each with its reason', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('convert-meaning')
    for (const [name, [text]] of Object.entries(CHANGED)) await client.set(`${p}changed:${name}`, text)
    for (const [name, text] of Object.entries(KEPT)) await client.set(`${p}kept:${name}`, text)

    const { code, stdout, stderr } = await runCli(['convert', url, '--match', `${p}*`, '--json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report).toMatchObject({ end: 'complete', scanned: 14, converted: 4, keptAsJson: 10, invalid: 0 })
    const reasons = new Map<string, string>(report.keptAsJsonKeys.map((k: { key: string; reason: string }) => [k.key, k.reason]))
    for (const [name, [text, reason]] of Object.entries(CHANGED)) {
      expect(reasons.get(`${p}changed:${name}`)).toMatch(reason)
      expect(await client.get(`${p}changed:${name}`)).toBe(text)
    }
    for (const [name, text] of Object.entries(KEPT)) {
      const back = decode((await client.getBuffer(`${p}kept:${name}`))!)
      expect(back).toStrictEqual(JSON.parse(text))
    }
    expect(Object.is((decode((await client.getBuffer(`${p}kept:floats`))!) as number[])[2], -0)).toBe(true)

    const text = await runCli(['convert', url, '--match', `${p}changed:big*`])
    expect(text.stdout).toMatch(/kept as JSON\s+2 \(refused: converting would change what they mean, or the codec refuses them\)/)
    expect(text.stdout).toContain(`Refused (left as JSON)\n  "${p}changed:big`)
  })

  it('never refuses a number as JSON.stringify writes it, but for integers beyond 2^53 (the check convert runs on every value)', () => {
    let seed = 21
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const numbers: number[] = []
    for (let i = 0; i < 20_000; i++) {
      const bits = new DataView(new ArrayBuffer(8))
      bits.setUint32(0, Math.floor(random() * 2 ** 32))
      bits.setUint32(4, Math.floor(random() * 2 ** 32))
      const any = bits.getFloat64(0)
      if (Number.isFinite(any)) numbers.push(any)
      numbers.push(Math.round((random() - 0.5) * 2 ** 54) || 1, (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20), Math.round(random() * 1e6) / 100)
    }
    const text = JSON.stringify(numbers.filter((n) => Number.isSafeInteger(n) || !Number.isInteger(n) || Math.abs(n) >= 2 ** 53 && String(n).includes('e')))
    expect(jsonMeaningChange(text)).toBeUndefined()
  })

  it('refuses a value that starts with a byte order mark as not JSON (JSON.parse refuses it too)', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const key = `${uniquePrefix('convert-bom')}k`
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])
    await client.set(key, bytes)
    const { code, stdout } = await runCli(['convert', url, '--match', key, '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ converted: 0, invalid: 1 })
    expect(await client.getBuffer(key)).toEqual(bytes)
  })
})
