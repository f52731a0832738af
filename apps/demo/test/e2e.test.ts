// The demo as a person uses it: the real server against a real Redis, the built page in Debian's
// Chromium through Playwright. Also writes the screenshot README.md shows.
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'
import { chromium, type Browser, type Page } from 'playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chooseRedis, type RedisChoice } from '../src/redis.js'
import { startDemo, type Demo } from '../src/server.js'

const here = dirname(fileURLToPath(import.meta.url))
let redis: RedisChoice
let browser: Browser

beforeAll(async () => {
  redis = await chooseRedis()
  browser = await chromium.launch(chromiumLaunchOptions)
})
afterAll(async () => {
  await browser?.close()
  await redis?.stop()
})

const rows = (page: Page) => page.evaluate(() => window.demo.rows)
const ready = (page: Page) => page.waitForFunction(() => window.demo?.ready === true, undefined, { timeout: 30_000 })

// The built page as a plain static server would serve it: no API behind /api/ (404).
async function serveStaticBuild(): Promise<{ url: string; server: Server }> {
  const dist = join(here, '..', 'dist')
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    readFile(join(dist, path === '/' ? 'index.html' : path)).then(
      (body) => res.writeHead(200, { 'Content-Type': { '.js': 'text/javascript', '.css': 'text/css' }[extname(path)] ?? 'text/html' }).end(body),
      () => res.writeHead(404).end('not found'),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }
}

// What the offline page promises: each object by its label, a chart of what the browser holds,
// invalidate turned off with its reason, and the status line saying the server is unreachable.
async function expectHonestOffline(page: Page): Promise<void> {
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 10_000 }).toContain('server unreachable: showing what IndexedDB kept')
  expect(await page.evaluate(() => window.demo.online)).toBe(false)
  const objects = await page.locator('#rows tr td:first-child b').allTextContents()
  expect(objects).toContain('seed array, 1,000 items (best case)')
  expect(objects).toContain('world-countries, 250 countries (real data)')
  expect(objects).not.toContain('items-1000')
  const buttons = page.locator('button[data-invalidate]')
  expect(await buttons.count()).toBe(6)
  for (const button of await buttons.all()) {
    expect(await button.isDisabled()).toBe(true)
    expect(await button.getAttribute('title')).toContain('The server is unreachable')
  }
  // Two bars per object, drawn from what this browser measures; no note standing in for the chart.
  expect(await page.locator('#chart').isVisible()).toBe(true)
  expect(await page.locator('#chart rect').count()).toBe(12)
  expect(await page.locator('#chart text.label').allTextContents()).toContain('user session')
  expect(await page.locator('#chart-note').isHidden()).toBe(true)
}

describe('the demo with Redis', () => {
  let demo: Demo
  let page: Page

  beforeAll(async () => {
    expect(redis.url, 'the e2e test needs a Redis (REDIS_URL, :6379, or redis-server on the PATH)').toBeDefined()
    demo = await startDemo({ redisUrl: redis.url, namespace: `demo-test-${Math.random().toString(36).slice(2)}`, port: 0 })
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  })
  afterAll(async () => {
    await demo?.close().catch(() => {})
  })

  it('renders every object (real data too) and shows its sizes on both sides, the same MessagePack in Redis and IndexedDB, and browser read times beside the JSON path', async () => {
    await page.goto(demo.url)
    await ready(page)
    const shown = await rows(page)
    expect(Object.keys(shown).sort()).toStrictEqual(['countries', 'items-100', 'items-1000', 'items-100000', 'post', 'session'])
    expect(shown.countries!.summary).toBe('250 countries; first Aruba')
    for (const row of Object.values(shown)) expect(Number.isFinite(row.readMs) && Number.isFinite(row.jsonParseMs)).toBe(true)
    // The clock has 0.1 ms steps: the large rows take measurable time on both paths.
    for (const name of ['countries', 'items-100000']) expect(shown[name]!.readMs > 0 && shown[name]!.jsonParseMs > 0).toBe(true)
    expect(shown['items-1000']!.summary).toBe('1,000 items; last index 999')
    expect(shown.post!.summary).toContain('40 comments')
    for (const row of Object.values(shown)) {
      expect(row.source).toBe('network')
      expect(row.equal).toBe(true)
    }
    const stats = await page.evaluate(() => window.demo.stats!)
    expect(stats.store).toBe('redis')
    const items = stats.datasets['items-1000']!
    expect(items.redisStowage!).toBeLessThan(items.redisJson! * 0.01)
    expect(items.stowageBytes!).toBeLessThan(items.jsonBytes! * 0.01)
    // The browser keeps the server's deflated envelope inflated (the same MessagePack: row.equal).
    expect(shown['items-1000']!.storedBytes).toBeGreaterThanOrEqual(items.stowageBytes!)
    expect(shown['items-1000']!.storedBytes).toBeLessThan(items.jsonBytes! * 0.1)
    // The chart's JSON sizes, measured in the browser, are the server's: the chart needs no server.
    for (const [name, row] of Object.entries(shown)) expect(row.jsonBytes, name).toBe(stats.datasets[name]!.jsonBytes)
    expect(await page.locator('#rows tr td:first-child b').first().textContent()).toBe('seed array, 100 items (best case)')
    expect(await page.locator('button[data-invalidate]:not([disabled])').count()).toBe(6)
    expect(await page.locator('#chart rect').count()).toBe(12)
    await expect.poll(() => page.locator('td.ok').count()).toBe(6)
    await expect.poll(() => page.locator('#banner').isHidden()).toBe(true)
    // The service worker has kept the page's files (for the offline reload below).
    await expect.poll(() => page.evaluate(async () => window.demo.shellKept === true && (await caches.match('/')) !== undefined), { timeout: 10_000 }).toBe(true)
    await page.screenshot({ path: join(here, '..', 'screenshot.png'), fullPage: true })
  })

  it('on reload, serves everything from IndexedDB after a 304 revalidation', async () => {
    await page.reload()
    await ready(page)
    for (const row of Object.values(await rows(page))) expect(row.source).toBe('revalidated')
  })

  it('learns of a server-side invalidation over server-sent events and refetches', async () => {
    await page.locator('button[data-invalidate="post"]').click()
    await page.waitForFunction(() => window.demo.rows.post?.revision === 2, undefined, { timeout: 10_000 })
    await expect.poll(async () => (await rows(page)).post!.source).toBe('network')
    await expect.poll(async () => (await rows(page)).post!.equal, { timeout: 10_000 }).toBe(true)
  })

  it('keeps showing what IndexedDB holds when the server is gone', async () => {
    await demo.close()
    await page.locator('#refresh').click()
    await page.waitForFunction(() => Object.values(window.demo.rows).every((r) => r.source === 'offline'), undefined, { timeout: 10_000 })
    // The rows turn offline one by one; the status line follows once the stats request has failed too.
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 10_000 }).toContain('server unreachable')
    expect((await rows(page))['items-1000']!.summary).toBe('1,000 items; last index 999')
    await expectHonestOffline(page)
  })

  it('reloads (F5) with the server down: the service worker serves the page, IndexedDB the data', async () => {
    await page.reload()
    await ready(page)
    const shown = await rows(page)
    expect(Object.keys(shown)).toHaveLength(6)
    for (const row of Object.values(shown)) expect(row.source).toBe('offline')
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 10_000 }).toContain('server unreachable')
    // No stats from the server this time: the labels, the chart and the reasons come from the page itself.
    expect(await page.evaluate(() => window.demo.stats)).toBeUndefined()
    await expectHonestOffline(page)
    await page.screenshot({ path: join(here, '..', 'offline-screenshot.png'), fullPage: true })
  })
})

describe('the built page with no server behind it (a plain static server: no API)', () => {
  let site: { url: string; server: Server }
  beforeAll(async () => {
    site = await serveStaticBuild()
  })
  afterAll(() => {
    site?.server.close()
  })

  it('the bytes page says the server is unreachable and nothing is kept, in place of rows and of an empty chart', async () => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(site.url)
    await ready(page)
    expect(await page.locator('#status').textContent()).toBe('server unreachable, and this browser has kept nothing yet.')
    expect(await page.locator('#rows td.empty').textContent()).toContain('the server is unreachable and this browser has kept nothing')
    expect(await page.locator('button[data-invalidate]').count()).toBe(0)
    expect(await page.locator('#chart').isVisible()).toBe(false)
    expect(await page.locator('#chart-note').textContent()).toBe('No chart: this browser has kept nothing to measure, and the server is unreachable.')
    expect(Object.keys(await page.evaluate(() => window.demo.missing)).sort()).toStrictEqual(['countries', 'items-100', 'items-1000', 'items-100000', 'post', 'session'])
  })

  it('the countries app says the server is unreachable, never a bare "data: —"', async () => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${site.url}/app.html`)
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toBe('server unreachable, and this browser has kept nothing yet.')
    expect(await page.locator('#list-error').textContent()).toContain('Nothing to show: the server is unreachable')
  })
})

describe('the countries app (TanStack Query, fetchCached, the Stowage persister, a service worker)', () => {
  let demo: Demo
  let page: Page
  const appReady = (p: Page) => p.waitForFunction(() => window.app?.ready === true && document.querySelector('#count') !== null, undefined, { timeout: 30_000 })

  beforeAll(async () => {
    demo = await startDemo({ redisUrl: redis.url, namespace: `demo-app-${Math.random().toString(36).slice(2)}`, port: 0 })
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  })
  afterAll(async () => {
    await demo?.close().catch(() => {})
  })

  it('lists the 250 countries of the world-countries package, searches, shows one, keeps a favourite', async () => {
    await page.goto(`${demo.url}/app.html`)
    await appReady(page)
    await expect.poll(() => page.locator('#count').textContent()).toContain('250 of 250 countries')
    expect(await page.evaluate(() => window.app.sources['/api/countries'])).toBe('network')
    await page.locator('#search').fill('fran')
    await expect.poll(() => page.locator('#count').textContent()).toContain('1 of 250')
    await page.locator('tr[data-code="FRA"]').click()
    await expect.poll(() => page.locator('#detail').textContent()).toContain('French Republic')
    await page.locator('button[data-star="FRA"]').click()
    await expect.poll(() => page.locator('#count').textContent()).toContain('favourites: 1')
    await expect.poll(() => page.evaluate(async () => window.app.shellKept === true && (await caches.match('/app.html')) !== undefined), { timeout: 10_000 }).toBe(true)
    await page.screenshot({ path: join(here, '..', 'app-screenshot.png'), fullPage: false })
  })

  it('after a reload, restores the queries and the favourite (setQueryData) from IndexedDB at once', async () => {
    await page.waitForTimeout(1_500) // the persister writes at most once a second
    await page.reload()
    await appReady(page)
    expect(await page.evaluate(() => window.app.restored)).toBe(true)
    await expect.poll(() => page.locator('#count').textContent()).toContain('favourites: 1')
    // Restored at once, and asked of the server all the same: the status says what it answered.
    await expect.poll(() => page.locator('#status').textContent()).toContain('Restored from IndexedDB at once (the Stowage persister); data: revalidated')
    // The country shown is in the URL (#FRA), so it is shown again without a click.
    await expect.poll(() => page.locator('#detail').textContent()).toContain('French Republic')
  })

  it('reloads with the server down: the service worker serves the page, IndexedDB the data', async () => {
    await demo.close()
    await page.reload()
    await appReady(page)
    await expect.poll(() => page.locator('#count').textContent()).toContain('250 of 250 countries · favourites: 1')
    await expect.poll(() => page.locator('#status').textContent()).toContain('server unreachable: showing what IndexedDB holds.')
    await page.locator('tr[data-code="FRA"]').click()
    await expect.poll(() => page.locator('#detail').textContent()).toContain('French Republic')
  })
})

describe('the demo and the Redis it is given', () => {
  it('stops with a clear message when REDIS_URL does not answer, instead of using another Redis', async () => {
    const { spawnSync } = await import('node:child_process')
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, '..', 'src', 'main.ts')], {
      cwd: join(here, '..'),
      env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', PORT: '0' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('REDIS_URL=redis://127.0.0.1:1 does not answer')
  })

  it('deletes only the keys it wrote when it stops', async () => {
    const { Redis } = await import('ioredis')
    const namespace = `demo-own-${Math.random().toString(36).slice(2)}`
    const client = new Redis(redis.url!)
    await client.set(`${namespace}:yours`, 'not the demo’s')
    const demo = await startDemo({ redisUrl: redis.url, namespace, port: 0 })
    await fetch(`${demo.url}/api/data/session`)
    expect(await client.exists(`${namespace}:session`)).toBe(1)
    await demo.close()
    expect(await client.exists(`${namespace}:session`)).toBe(0)
    expect(await client.get(`${namespace}:yours`)).toBe('not the demo’s')
    await client.del(`${namespace}:yours`)
    await client.quit()
  })
})

describe('the demo without Redis', () => {
  it('runs on the embedded memory store and says so on the page', async () => {
    const demo = await startDemo({ port: 0 })
    try {
      const page = await (await browser.newContext()).newPage()
      await page.goto(demo.url)
      await ready(page)
      expect(demo.store).toBe('memory')
      await expect.poll(() => page.locator('#banner').textContent()).toContain('No Redis reachable')
      await expect.poll(() => page.locator('#server-column').textContent()).toContain('in memory')
      for (const row of Object.values(await rows(page))) expect(row.equal).toBe(true)
    } finally {
      await demo.close()
    }
  })
})
