import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCodec, encode, trainDictionary } from '@stowage/core'
import { createRedisStore } from '@stowage/redis'
import { freePort } from '@stowage/redis-server'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { redisClient, runCli, STACK_LINE, uniquePrefix } from './run-cli.js'

const rich = { id: 42n, tags: new Set(['a', 'b']), at: new Date(1700000000000), scores: new Float64Array([1.5, -0]), byId: new Map([[1, 'one']]) }
const rows = Array.from({ length: 200 }, (_, i) => ({ index: i, createdAt: 1700000000000 + i, nested: { isEven: i % 2 === 0 } }))

// One directory for the files of this suite, removed after it.
const dir = mkdtempSync(join(tmpdir(), 'stowage-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function tempFile(name: string, bytes: Uint8Array): string {
  const path = join(mkdtempSync(join(dir, 'file-')), name)
  writeFileSync(path, bytes)
  return path
}

describe('stowage inspect', () => {
  it("reads a bundle's field: a Redis hash whose fields are envelopes", async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const prefix = uniquePrefix('inspect-bundle')
    const { createCache } = await import('@stowage/core')
    const cache = createCache({ store: createRedisStore({ client }), namespace: prefix.slice(0, -1), local: false })
    await cache.bundle('post').set('title', 'Hello')
    const shown = await runCli(['inspect', url, `${prefix}post`, 'title'])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain(`field "title"`)
    expect(shown.stdout).toContain("'Hello'")
    const missing = await runCli(['inspect', url, `${prefix}post`, 'nope'])
    expect(missing.stderr).toMatch(/has no field "nope"/)
  })

  it('prints the header, TTL, memory usage, ratio to JSON and typed value of an envelope in Redis', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const key = `${uniquePrefix('inspect')}rows`
    const bytes = createCodec({ compress: 'always' }).encode(rows, { schemaVersion: 3, freshUntil: 1800000000000, tags: new Map([['rows', 7]]) })
    await client.set(key, Buffer.from(bytes), 'EX', 600)
    const { code, stdout, stderr } = await runCli(['inspect', url, key])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toMatch(/format\s+Stowage envelope, format version 2/)
    expect(stdout).toMatch(/compression\s+raw deflate/)
    expect(stdout).toMatch(/schema version\s+3/)
    expect(stdout).toMatch(/fresh until\s+2027-01-15T08:00:00.000Z \(1800000000000\)/)
    expect(stdout).toMatch(/tags\s+rows@7/)
    expect(stdout).toMatch(/TTL\s+(59\d,\d{3}|600,000) ms \(/)
    expect(stdout).toMatch(new RegExp(`memory usage\\s+${await client.memory('USAGE', key)} B`))
    expect(stdout).toMatch(/CRC-32\s+ok/)
    expect(stdout).toContain(`envelope        ${bytes.length.toLocaleString('en-US')} B`)
    expect(stdout).toMatch(/payload\s+[\d,]+ B of MessagePack \(inflated; stored 0\.\d+×\)/)
    expect(stdout).toMatch(/as JSON\s+12,991 B: the envelope is 0\.0\d+× the equivalent JSON/)
    expect(stdout).toContain('{ index: 9, createdAt: 1700000000009, nested: { isEven: false } }')
  })

  it('gives the same facts as JSON with --json, the value in tagged JSON', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const key = `${uniquePrefix('inspect-json')}rich`
    const bytes = encode(rich)
    await client.set(key, Buffer.from(bytes))
    const { code, stdout } = await runCli(['inspect', url, key, '--json'])
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.source).toMatchObject({ kind: 'redis', key, redis: { ttlMs: null, memoryUsage: await client.memory('USAGE', key) } })
    expect(report.header).toMatchObject({ formatVersion: 2, compression: 'none', byteLength: bytes.length, schemaVersion: null, tags: null })
    expect(report.crc).toBe('ok')
    expect(report.ratioToJson).toBeCloseTo(bytes.length / report.jsonBytes, 10)
    expect(report.value.id).toEqual({ $stowage: 'bigint', value: '42' })
    expect(report.value.byId).toEqual({ $stowage: 'Map', value: [[1, 'one']] })
    expect(report.error).toBeNull()
  })

  it('shows Map, Set, Date, BigInt and typed arrays as such, from a file and from standard input', async () => {
    const bytes = encode(rich)
    for (const args of [['inspect', tempFile('rich.stow', bytes)], ['inspect', '-']]) {
      const { code, stdout } = await runCli(args, bytes)
      expect(code).toBe(0)
      expect(stdout).toContain('id: 42n')
      expect(stdout).toContain("tags: Set(2) { 'a', 'b' }")
      expect(stdout).toContain('at: 2023-11-14T22:13:20.000Z')
      expect(stdout).toContain('scores: Float64Array(2) [ 1.5, -0 ]')
      expect(stdout).toContain("byId: Map(1) { 1 => 'one' }")
    }
  })

  it('says CHECKSUM_MISMATCH for a flipped byte, with the header still shown and exit code 1', async () => {
    const bytes = encode(rows)
    const damaged = bytes.slice()
    damaged[damaged.length - 5]! ^= 0x01
    const { code, stdout, stderr } = await runCli(['inspect', '-'], damaged)
    expect(code).toBe(1)
    expect(stdout).toMatch(/CRC-32\s+MISMATCH/)
    expect(stderr).toBe('stowage: CHECKSUM_MISMATCH: the envelope is damaged, cut short or followed by other bytes: its CRC-32 does not match\n')
    expect(stdout + stderr).not.toMatch(STACK_LINE)
  })

  it('says when the bytes are an envelope followed by a newline (as redis-cli prints one), and when a preset dictionary is needed', async () => {
    const withNewline = Buffer.concat([encode(rows), Buffer.from('\n')])
    const newline = await runCli(['inspect', '-'], withNewline)
    expect(newline.code).toBe(1)
    expect(newline.stderr).toMatch(/^stowage: CHECKSUM_MISMATCH: the envelope is followed by a newline \(redis-cli prints one after a value\)/)
    const decoded = await runCli(['decode', '-'], withNewline)
    expect(decoded.code).toBe(1)
    expect(decoded.stderr).toMatch(/followed by a newline/)

    const dictionary = trainDictionary(Array.from({ length: 100 }, (_, i) => ({ login: `user${i}`, url: `https://api.github.com/users/user${i}`, site_admin: false })), { size: 1024 })
    const value = { login: 'octocat', url: 'https://api.github.com/users/octocat', site_admin: false }
    const bytes = createCodec({ dictionaries: [dictionary] }).encode(value)
    const file = join(dir, 'dict.bin')
    writeFileSync(file, dictionary)
    const without = await runCli(['decode', '-'], bytes)
    expect(without.code).toBe(1)
    expect(without.stderr).toMatch(/written with the preset dictionary 0x[0-9a-f]{8}: give its bytes with --dictionary <file>/)
    const withIt = await runCli(['decode', '--dictionary', file, '--indent', '0', '-'], bytes)
    expect(withIt.code).toBe(0)
    expect(JSON.parse(withIt.stdout)).toStrictEqual(value)
    const inspected = await runCli(['inspect', '--dictionary', file, '--json', '-'], bytes)
    expect(inspected.code).toBe(0)
    expect(JSON.parse(inspected.stdout).value).toStrictEqual(value)
    for (const r of [newline, decoded, without]) expect(r.stderr).not.toMatch(STACK_LINE)
  })

  it('says TRUNCATED and BAD_MAGIC for cut and foreign bytes, also in --json', async () => {
    const bytes = encode(rows)
    const cut = await runCli(['inspect', '-', '--json'], bytes.subarray(0, 6))
    expect(cut.code).toBe(1)
    expect(JSON.parse(cut.stdout).error.code).toBe('TRUNCATED')
    const cutPayload = await runCli(['inspect', '-', '--json'], bytes.subarray(0, bytes.length - 3))
    expect(cutPayload.code).toBe(1)
    expect(['TRUNCATED', 'CHECKSUM_MISMATCH', 'CORRUPT']).toContain(JSON.parse(cutPayload.stdout).error.code)
    const foreign = await runCli(['inspect', '-'], JSON.stringify(rows))
    expect(foreign.code).toBe(1)
    expect(foreign.stderr).toMatch(/^stowage: BAD_MAGIC: /)
    expect(foreign.stdout + foreign.stderr).not.toMatch(STACK_LINE)
  })

  it('says a Redis key holds a chunked value, and reads it through the chunks', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const key = `${uniquePrefix('inspect-chunks')}big`
    const value = Array.from({ length: 3000 }, (_, i) => `line ${i} ${'x'.repeat(i % 17)}`)
    const store = createRedisStore({ client, chunkSize: 1024 })
    const bytes = createCodec({ compress: 'never' }).encode(value)
    await store.set(key, bytes, { ttl: 60_000 })
    expect((await client.strlen(key))).toBe(40)
    const { code, stdout } = await runCli(['inspect', url, key])
    expect(code).toBe(0)
    expect(stdout).toMatch(new RegExp(`stored as\\s+${Math.ceil(bytes.length / 1024)} chunks plus a 40-byte manifest`))
    expect(stdout).toContain(`envelope        ${bytes.length.toLocaleString('en-US')} B`)
    expect(stdout).toContain("'line 19 xx'")
    expect(stdout).toContain('... 2980 more items')
  })

  it('fails cleanly on a missing key, a key of another type, and an unreachable Redis', async () => {
    const url = inject('redisUrl')
    const client = redisClient()
    const prefix = uniquePrefix('inspect-missing')
    await client.hset(`${prefix}hash`, 'a', '1')
    const missing = await runCli(['inspect', url, `${prefix}nothing`])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^stowage: INVALID_ARGUMENT: key ".*nothing" does not exist/)
    await client.set(`${prefix}list-like`, 'x')
    const hash = await runCli(['inspect', url, `${prefix}hash`])
    expect(hash.code).toBe(1)
    expect(hash.stderr).toMatch(/is a Redis hash \(a Stowage bundle keeps one envelope per field\): give a field.*\(fields: a\)/)
    const escaped = await runCli(['inspect', url, `${prefix}user:1`])
    expect(escaped.stderr).toContain('as %3A and %25')
    const notHash = await runCli(['inspect', url, `${prefix}list-like`, 'f'])
    expect(notHash.stderr).toMatch(/not a hash: a field is only taken for a bundle/)
    // A command line missing what its source needs is a usage error (exit code 2), as the README's table says.
    const noKey = await runCli(['inspect', url])
    expect([noKey.code, noKey.stderr.trim()]).toStrictEqual([2, 'stowage: INVALID_ARGUMENT: inspect <redis-url> needs a key: stowage inspect redis://host:6379 <key>'])
    const keyForFile = await runCli(['inspect', '-', 'k'], new Uint8Array([0xc1]))
    expect(keyForFile.code).toBe(2)
    const down = await runCli(['inspect', `redis://127.0.0.1:${await freePort()}`, 'k'])
    expect(down.code).toBe(3)
    expect(down.stderr).toMatch(/^stowage: STORE_ERROR: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/)
    expect(down.stderr).not.toMatch(STACK_LINE)
  })
})
