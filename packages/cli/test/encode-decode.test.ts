import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decode, encode } from '@stowage/core'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, STACK_LINE } from './run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'stowage-cli-codec-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const MODULE = join(dir, 'value.mjs')
writeFileSync(
  MODULE,
  `export default { id: 42n, tags: new Set(['a', 'b']), at: new Date(1700000000000), bad: new Date(NaN), scores: new Float64Array([1.5, -0, NaN]),
    byId: new Map([[1, { name: 'one' }]]), nothing: undefined, nan: NaN, minusZero: -0, re: /x+/gi, raw: new Uint8Array([0, 255]), $stowage: 'a user key' }\n`,
)

describe('stowage encode / decode', () => {
  it('encodes JSON from standard input to the bytes encode() gives, and decodes them back to the same JSON', async () => {
    const value = { user: { id: 7, name: 'Ada', roles: ['admin'] }, rows: Array.from({ length: 50 }, (_, i) => ({ i, even: i % 2 === 0 })) }
    const encoded = await runCli(['encode'], JSON.stringify(value))
    expect(encoded.code).toBe(0)
    expect(new Uint8Array(encoded.stdoutBytes)).toEqual(new Uint8Array(encode(value))) // on Node encode gives a Buffer
    const decoded = await runCli(['decode', '--indent', '0'], encoded.stdoutBytes)
    expect(decoded.code).toBe(0)
    expect(decoded.stdout).toBe(JSON.stringify(value) + '\n')
  })

  it('reads and writes files with -o', async () => {
    const input = join(dir, 'in.json')
    const envelope = join(dir, 'out.stow')
    const back = join(dir, 'back.json')
    writeFileSync(input, '[1, "two", {"three": 3}]')
    expect((await runCli(['encode', input, '-o', envelope])).code).toBe(0)
    expect(decode(readFileSync(envelope))).toEqual([1, 'two', { three: 3 }])
    expect((await runCli(['decode', envelope, '-o', back])).code).toBe(0)
    expect(JSON.parse(readFileSync(back, 'utf8'))).toEqual([1, 'two', { three: 3 }])
  })

  it('encodes a module\'s default export with every type intact', async () => {
    const { code, stdoutBytes } = await runCli(['encode', '--module', MODULE])
    expect(code).toBe(0)
    const value = decode<Record<string, unknown>>(stdoutBytes)
    expect(value.id).toBe(42n)
    expect(value.byId).toEqual(new Map([[1, { name: 'one' }]]))
    expect(value.scores).toEqual(new Float64Array([1.5, -0, NaN]))
    expect(Object.is(value.minusZero, -0)).toBe(true)
  })

  it('refuses, without --tagged, a value JSON cannot hold, naming where it sits', async () => {
    const { stdoutBytes } = await runCli(['encode', '--module', MODULE])
    const { code, stdout, stderr } = await runCli(['decode'], stdoutBytes)
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('stowage: UNSUPPORTED_TYPE: $.id is the BigInt 42n, which JSON cannot hold; decode --tagged writes it as a {"$stowage": …} object\n')
    const inner = await runCli(['decode'], encode({ list: [1, { when: new Date(0) }] }))
    expect(inner.stderr).toMatch(/\$\.list\[1\]\.when is a Date/)
  })

  it('round-trips every type through decode --tagged and encode --tagged, byte for byte', async () => {
    const { stdoutBytes: original } = await runCli(['encode', '--module', MODULE])
    const tagged = await runCli(['decode', '--tagged'], original)
    expect(tagged.code).toBe(0)
    const outer = JSON.parse(tagged.stdout)
    // The value has a key of its own named "$stowage": the object is wrapped, so it is never read as a tag.
    expect(outer.$stowage).toBe('object')
    const json = outer.value
    expect(json.$stowage).toBe('a user key')
    expect(json.id).toEqual({ $stowage: 'bigint', value: '42' })
    expect(json.bad).toEqual({ $stowage: 'Date', value: null })
    expect(json.nothing).toEqual({ $stowage: 'undefined' })
    expect(json.minusZero).toEqual({ $stowage: 'number', value: '-0' })
    const again = await runCli(['encode', '--tagged'], tagged.stdout)
    expect(again.code).toBe(0)
    expect(again.stdoutBytes.equals(original)).toBe(true)
  })

  it('--tagged refuses a Date that is not an ISO 8601 string rather than store the invalid Date', async () => {
    for (const value of ['"not a date"', '"2023"', '"2023-11-14T22:13"', '"2023-13-45T00:00:00Z"', '5']) {
      const r = await runCli(['encode', '--tagged'], `{"$stowage":"Date","value":${value}}`)
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/Date needs an ISO 8601 string/)
    }
    for (const [value, iso] of [['"2023-11-14T22:13:20.000Z"', '2023-11-14T22:13:20.000Z'], ['"2023-11-14"', '2023-11-14T00:00:00.000Z'], ['"2023-11-14T23:13:20+01:00"', '2023-11-14T22:13:20.000Z']]) {
      const r = await runCli(['encode', '--tagged'], `{"$stowage":"Date","value":${value}}`)
      expect(r.code).toBe(0)
      expect((decode(r.stdoutBytes) as Date).toISOString()).toBe(iso)
    }
  })

  it('says what is wrong with input that is not JSON or not an envelope, with exit code 1 and no stack', async () => {
    const notJson = await runCli(['encode'], '{"a": ')
    expect(notJson.code).toBe(1)
    expect(notJson.stderr).toMatch(/^stowage: INVALID_ARGUMENT: standard input is not JSON: /)
    const damaged = encode({ a: 'b'.repeat(40) })
    damaged[damaged.length - 1]! ^= 0x40
    const bad = await runCli(['decode'], damaged)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe('stowage: CHECKSUM_MISMATCH: the envelope is damaged, cut short or followed by other bytes: its CRC-32 does not match\n')
    const usage = await runCli(['decode', '--indent', 'many'])
    expect(usage.code).toBe(2)
    for (const r of [notJson, bad, usage]) expect(r.stderr).not.toMatch(STACK_LINE)
  })
})
