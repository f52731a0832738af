// Stored data never reaches the terminal raw: control characters (C0, DEL, C1), bidi controls
// and other invisible format characters in keys, tags, values, reasons and error lines are
// printed as escapes, so a hostile value can neither clear the screen nor paint a line.
import { createCodec, encode } from '@stowage/core'
import { describe, expect, inject, it } from 'vitest'
import { redisClient, runCli, uniquePrefix, type CliResult } from './run-cli.js'

// Anything a terminal acts on or hides: C0 but the newline, DEL, C1, and Unicode format
// characters (bidi overrides and isolates, zero-width ones, the BOM), line and paragraph separators.
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/u

// Clears the screen and rings the bell; then a line that pretends the check passed.
const HOSTILE = '\x1b[2J\x07\nCRC-32          ok \u202edesrever\x9b31m\x7f'

function expectClean(run: CliResult): void {
  const out = run.stdout + run.stderr
  expect(out).not.toMatch(UNSAFE)
  expect(out).not.toMatch(/^CRC-32 {10}ok /m)
}

describe('what the CLI prints of stored data', () => {
  it('inspect escapes control and format characters in tags, keys, values, object keys and RegExps, and says which they were', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const key = `${uniquePrefix('escape-inspect')}${HOSTILE}`
    const value = { text: HOSTILE, [HOSTILE]: 1, pattern: new RegExp('\x1b\\[2J\x07\u202e'), list: new Set([HOSTILE]) }
    await client.set(key, Buffer.from(createCodec().encode(value, { tags: new Map([[HOSTILE, 1]]) })))
    const run = await runCli(['inspect', url, key])
    expect(run.code).toBe(0)
    expectClean(run)
    expect(run.stdout).toMatch(/^tags {12}\\x1B\[2J\\x07\\nCRC-32 {10}ok \\u202Edesrever\\x9B31m\\x7F@1$/m)
    expect(run.stdout).toContain('\\u202E')
    expect(run.stdout.match(/CRC-32/g)?.length).toBe(1 + 5) // the real line, and the escaped text in tag, key, value, object key and Set member: never at a line's start
  })

  it('inspect --json escapes them as JSON escapes, so the data reads back the same', async () => {
    const bytes = createCodec().encode({ text: HOSTILE }, { tags: new Map([[HOSTILE, 2]]) })
    const run = await runCli(['inspect', '-', '--json'], bytes)
    expect(run.code).toBe(0)
    expectClean(run)
    const report = JSON.parse(run.stdout)
    expect(report.header.tags).toEqual({ [HOSTILE]: 2 })
    expect(report.value.text).toBe(HOSTILE)
  })

  it("error lines escape the stored names they quote (a bundle's field names)", async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const key = `${uniquePrefix('escape-error')}bundle`
    await client.hset(key, HOSTILE, 'x')
    const run = await runCli(['inspect', url, key])
    expect(run.code).toBe(1)
    expectClean(run)
    expect(run.stderr).toContain('\\x1B[2J')
  })

  it('convert and scan escape keys and the reasons that quote a value', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const p = uniquePrefix('escape-reports')
    await client.set(`${p}${HOSTILE}:bad`, `{"broken": "${HOSTILE}`)
    await client.set(`${p}${HOSTILE}:dup`, JSON.stringify({ [HOSTILE]: 1 }).replace('}', `,${JSON.stringify(HOSTILE)}:2}`))
    for (const args of [['convert', url, '--match', `${p}*`], ['convert', url, '--match', `${p}*`, '--json'], ['scan', url, '--match', `${p}*`], ['scan', url, '--match', `${p}*`, '--json']]) {
      const run = await runCli(args)
      expect(run.code).toBe(0)
      expectClean(run)
    }
    const json = await runCli(['convert', url, '--match', `${p}*`, '--json'])
    expect(JSON.parse(json.stdout).invalidKeys[0].key).toBe(`${p}${HOSTILE}:bad`)
  })

  it('decode writes them as JSON escapes: the same JSON, nothing raw', async () => {
    const run = await runCli(['decode', '-'], encode({ [HOSTILE]: HOSTILE }))
    expect(run.code).toBe(0)
    expectClean(run)
    expect(JSON.parse(run.stdout)).toEqual({ [HOSTILE]: HOSTILE })
  })
})
