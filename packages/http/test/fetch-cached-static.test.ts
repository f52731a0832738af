// fetchCached against a plain static file server (as nginx serves a file): its own ETag
// ("<mtime>-<size>") and Last-Modified, a 304 when If-None-Match names its ETag.
import { createCache, createCodec, inspect } from '@stowage/core'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fetchCachedWithInfo } from '../src/index.js'

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

// A directory of its own for each test's file, removed after the test.
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stowage-static-'))
  closers.push(async () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function staticServer(file: string, { etags = true } = {}): Promise<{ url: string; statuses: number[] }> {
  const statuses: number[] = []
  const server = createServer((req, res) => {
    void (async () => {
      const { mtimeMs, size } = statSync(file)
      const etag = `"${Math.floor(mtimeMs / 1000).toString(16)}-${size.toString(16)}"`
      const lastModified = new Date(Math.floor(mtimeMs / 1000) * 1000).toUTCString()
      const headers: Record<string, string> = { 'Last-Modified': lastModified, 'Content-Type': 'application/vnd.stowage' }
      if (etags) headers.ETag = etag
      const status = (etags ? req.headers['if-none-match'] === etag : req.headers['if-modified-since'] === lastModified) ? 304 : 200
      statuses.push(status)
      if (status === 304) return void res.writeHead(304, headers).end()
      res.writeHead(200, headers).end(await readFile(file))
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((r) => server.close(() => r())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/countries.stowage`, statuses }
}

describe('fetchCached against a static file server', () => {
  it('fetches and keeps an envelope file whose ETag is the server\'s own', async () => {
    const file = join(tempDir(), 'countries.stowage')
    writeFileSync(file, createCodec().encode(['fr', 'de']))
    const { url } = await staticServer(file)
    const cache = createCache({ namespace: 'static' })
    expect(await fetchCachedWithInfo(url, { cache })).toMatchObject({ source: 'network', value: ['fr', 'de'], kept: true })
  })

  // Issue #20 item 18: the server's own validator is kept in the envelope's header (withValidator).
  it("revalidates with the server's own validator (a 304, not the whole file again)", async () => {
    const file = join(tempDir(), 'countries.stowage')
    writeFileSync(file, createCodec().encode(['fr', 'de']))
    const { url, statuses } = await staticServer(file)
    const cache = createCache({ namespace: 'static' })
    await fetchCachedWithInfo(url, { cache })
    expect(await fetchCachedWithInfo(url, { cache })).toMatchObject({ source: 'revalidated' })
    expect(statuses).toStrictEqual([200, 304])
  })

  it('keeps a format-1 file (Stowage 0.1) without the server\'s validator, which that format has no field for', async () => {
    const file = join(tempDir(), 'v1.stowage')
    // { a: 1, b: 'two', c: [true, false, null] } as Stowage 0.1 wrote it (the core's golden vectors).
    writeFileSync(file, Buffer.from('c1010000a857b54183a16101a162a374776fa16393c3c2c0', 'hex'))
    const { url, statuses } = await staticServer(file)
    const cache = createCache({ namespace: 'static-v1' })
    const first = await fetchCachedWithInfo(url, { cache })
    expect(first).toMatchObject({ source: 'network', value: { a: 1, b: 'two', c: [true, false, null] }, kept: true })
    expect(inspect(first.bytes)).toMatchObject({ formatVersion: 1, validator: undefined })
    // A copy without a validator is asked for without one: a 200 again.
    expect(await fetchCachedWithInfo(url, { cache })).toMatchObject({ source: 'network', kept: true })
    expect(statuses).toStrictEqual([200, 200])
  })

  it('revalidates with If-Modified-Since against a server that sends only Last-Modified', async () => {
    const file = join(tempDir(), 'countries.stowage')
    writeFileSync(file, createCodec().encode(['fr', 'de']))
    const { url, statuses } = await staticServer(file, { etags: false })
    const cache = createCache({ namespace: 'static-lm' })
    const first = await fetchCachedWithInfo(url, { cache })
    expect(inspect(first.bytes).validator?.kind).toBe('last-modified')
    expect(await fetchCachedWithInfo(url, { cache })).toMatchObject({ source: 'revalidated', value: ['fr', 'de'] })
    expect(statuses).toStrictEqual([200, 304])
  })

  it('with inflate, keeps a deflated envelope inflated, with the server\'s ETag, and still gets a 304', async () => {
    const file = join(tempDir(), 'rows.stowage')
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` }))
    writeFileSync(file, createCodec({ compress: 'always' }).encode(rows))
    const { url, statuses } = await staticServer(file)
    const cache = createCache({ namespace: 'static-inflate' })
    const first = await fetchCachedWithInfo(url, { cache, inflate: true })
    expect(first.value).toStrictEqual(rows)
    expect(inspect(first.bytes)).toMatchObject({ compression: 'none', validator: { kind: 'etag' } })
    expect(inspect((await cache.getBytes(url))!).compression).toBe('none')
    expect(await fetchCachedWithInfo(url, { cache, inflate: true })).toMatchObject({ source: 'revalidated', value: rows })
    expect(statuses).toStrictEqual([200, 304])
    // Without inflate (the default on Node) the bytes are kept as they came.
    const other = createCache({ namespace: 'static-deflated' })
    expect(inspect((await fetchCachedWithInfo(url, { cache: other })).bytes).compression).toBe('deflate-raw')
  })
})
