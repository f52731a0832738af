// Two real Chromium pages of one origin (and a Web Worker), driven by Playwright: the cross-tab
// behaviour a unit test inside one page cannot show.
import { build } from 'esbuild'
import { createServer, type Server } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'
import { chromium, type Browser, type Page } from 'playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
let server: Server
let browser: Browser
let origin: string

beforeAll(async () => {
  const bundles: Record<string, string> = {}
  for (const name of ['tab', 'worker']) {
    const out = await build({ entryPoints: [join(here, 'pages', `${name}.ts`)], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022' })
    bundles[`/${name}.js`] = out.outputFiles[0]!.text
  }
  server = createServer((req, res) => {
    const script = bundles[req.url ?? '']
    if (script) return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script)
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><script type="module" src="/tab.js"></script>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  browser = await chromium.launch(chromiumLaunchOptions)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => server?.close(resolve))
})

async function tabs(withChannel: boolean): Promise<[Page, Page]> {
  const context = await browser.newContext()
  const pages = [await context.newPage(), await context.newPage()] as [Page, Page]
  for (const page of pages) {
    await page.goto(origin)
    await page.waitForFunction(() => typeof window.setup === 'function')
    await page.evaluate((channel) => window.setup(channel), withChannel)
  }
  return pages
}

const get = (page: Page, key: string) => page.evaluate((k) => window.cache.get(k), key)
const set = (page: Page, key: string, value: unknown) => page.evaluate(([k, v]) => window.cache.set(k as string, v), [key, value] as const)

// Each test opens new pages: on a busy 2-core machine (every browser suite at once) that took over 5 s.
describe('two tabs of one origin', { timeout: 30_000 }, () => {
  it('without a channel, the second tab keeps serving its stale local copy (the problem)', async () => {
    const [a, b] = await tabs(false)
    await set(a, 'k', 1)
    expect(await get(b, 'k')).toBe(1)
    await set(a, 'k', 2)
    await b.waitForTimeout(200)
    expect(await get(b, 'k')).toBe(1)
  })

  it('with BroadcastChannel invalidation, a write or delete in one tab reaches the other', async () => {
    const [a, b] = await tabs(true)
    await set(a, 'k', { v: 1 })
    expect(await get(b, 'k')).toStrictEqual({ v: 1 }) // read from IndexedDB, now in b's memory tier
    await set(a, 'k', { v: 2 })
    await expect.poll(() => get(b, 'k'), { timeout: 3_000 }).toStrictEqual({ v: 2 })
    await a.evaluate(() => window.cache.delete('k'))
    await expect.poll(() => get(b, 'k'), { timeout: 3_000 }).toBeUndefined()
  })

  it('a Web Worker uses the same IndexedDB store as the page', async () => {
    const [page] = await tabs(true)
    await set(page, 'from-page', 'hello worker')
    const reply = (await page.evaluate(() => window.runWorker())) as { fromPage: unknown; backend: string }
    expect(reply).toStrictEqual({ fromPage: 'hello worker', backend: 'indexeddb' })
    expect(await page.evaluate(async () => {
      const v = (await window.cache.get('from-worker')) as { at: Date; big: bigint }
      return [v.at.getTime(), String(v.big)]
    })).toStrictEqual([5, String(2n ** 70n)])
  })
})
