// A browser that was never given a dictionary (real Chromium, real IndexedDB) fetches envelopes a
// server compressed with one: fetchCached fetches the dictionary where the server's
// Stowage-Dictionary header says, keeps it in IndexedDB, and reads the values; after a reload the
// kept values read with the server's dictionary route gone (issue 19).
import { createCache, dictionaryId, dictionaryKey, trainDictionary } from '@stowage/core'
import { fromNodeRequest, sendNodeResponse, serveCached, serveDictionary } from '@stowage/http'
import { build } from 'esbuild'
import { createServer, type Server } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser } from 'playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'

const here = dirname(fileURLToPath(import.meta.url))
const user = (i: number) => ({ login: `user${i}`, id: 1000 + i, url: `https://api.github.com/users/user${i}`, html_url: `https://github.com/user${i}`, type: 'User', site_admin: false })
const dictionary = trainDictionary(Array.from({ length: 300 }, (_, i) => user(i + 500)), { size: 2048 })
const server = createCache({ namespace: 'api', codec: { dictionaries: [dictionary] } })
let dictionariesServed = true
let dictionaryRequests = 0
let app: Server
let origin: string
let browser: Browser

beforeAll(async () => {
  for (let i = 0; i < 5; i++) await server.set(`u${i}`, user(i))
  const script = (await build({ entryPoints: [join(here, 'pages', 'dictionary.ts')], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022' })).outputFiles[0]!.text
  app = createServer((req, res) => {
    const path = req.url ?? '/'
    if (path === '/dictionary.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script)
    if (!path.startsWith('/api/') && !path.startsWith('/dictionaries/')) return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><script type="module" src="/dictionary.js"></script>')
    const request = fromNodeRequest(req)
    let answer: Promise<Response>
    if (path.startsWith('/dictionaries/')) {
      dictionaryRequests++
      answer = dictionariesServed ? serveDictionary(request, { store: server.store, id: path.slice('/dictionaries/'.length), shared: true }) : Promise.resolve(new Response(null, { status: 404 }))
    } else answer = serveCached(request, { cache: server, key: path.slice('/api/'.length), dictionaryUrl: (id) => `/dictionaries/${id}` })
    answer.then((r) => sendNodeResponse(res, r)).catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(app.address() as { port: number }).port}`
  browser = await chromium.launch(chromiumLaunchOptions)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((r) => app?.close(r))
})

describe('fetchCached of dictionary-compressed envelopes in Chromium', () => {
  it('fetches the dictionary once, keeps it in IndexedDB, and reads every value; after a reload the kept values read without the server', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(origin)
    await page.waitForFunction(() => typeof window.dict === 'object')
    for (let i = 0; i < 5; i++) expect(await page.evaluate((p) => window.dict.fetch(p), `/api/u${i}`)).toEqual({ source: 'network', value: user(i) })
    expect(dictionaryRequests).toBe(1)
    expect(await page.evaluate((id) => window.dict.stored(id), dictionaryId(dictionary))).toBe(dictionary.length)
    expect(await page.evaluate(() => window.dict.keys())).toContain(dictionaryKey(dictionaryId(dictionary)))

    // A reload with the dictionary route gone: the kept values revalidate (304) and read.
    dictionariesServed = false
    await page.reload()
    await page.waitForFunction(() => typeof window.dict === 'object')
    expect(await page.evaluate(() => window.dict.fetch('/api/u3'))).toEqual({ source: 'revalidated', value: user(3) })
    // A new value while the route is gone reads too: the dictionary is in IndexedDB.
    await server.set('u9', user(9))
    expect(await page.evaluate(() => window.dict.fetch('/api/u9'))).toEqual({ source: 'network', value: user(9) })
    expect(dictionaryRequests).toBe(1)
    await context.close()
  }, 60_000)

  it('a browser that lacks the dictionary and cannot fetch it gets an error naming it, never a value', async () => {
    dictionariesServed = false
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(origin)
    await page.waitForFunction(() => typeof window.dict === 'object')
    const got = await page.evaluate(() => window.dict.fetch('/api/u1'))
    expect(got).toMatchObject({ error: expect.stringMatching(/^STORE_ERROR: fetching dictionary .*\/dictionaries\/[0-9a-f]{8} failed: HTTP 404/) })
    await context.close()
  }, 60_000)
})
