// Opens a bench page in Debian's Chromium: bundles one file of browser/, serves it on loopback and
// loads it through Playwright. The caller runs the page's function, then closes.
import { build } from 'esbuild'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Page } from 'playwright'
import puppeteer from 'puppeteer-core'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'
import { startWebKit } from '../../../tools/browsers/webkit.js'

export interface BenchPage {
  readonly page: Page
  /** The browser's version, for the tables' captions. */
  readonly version: string
  close(): Promise<void>
}

// Debian's firefox-esr, as the Firefox test project uses it (FIREFOX_PATH overrides).
const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr'

/** A bench page in Firefox or WebKit: only what the benches use of it. */
export interface FirefoxBenchPage {
  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>
  readonly version: string
  close(): Promise<void>
}

/**
 * Bundles `browser/<file>` and serves it on loopback as a page of one module script: one server
 * for a whole run, so that browsers started over one on-disk profile share the origin (and so its
 * IndexedDB). `minify: false` keeps function names for a profiler. Close the server when done.
 */
export async function serveBundle(file: string, options: { minify?: boolean } = {}): Promise<{ server: ReturnType<typeof createServer>; url: string }> {
  const entry = join(dirname(fileURLToPath(import.meta.url)), 'browser', file)
  const bundle = (await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022', minify: options.minify ?? true })).outputFiles[0]!.text
  const server = createServer((req, res) => {
    if (req.url === '/page.js') return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle)
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><script type="module" src="/page.js"></script>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }
}

/** Bundles `browser/<file>` and opens it in Debian's firefox-esr (puppeteer-core over WebDriver BiDi), as {@link openBenchPage} does in Chromium. */
export async function openFirefoxBenchPage(file: string, ready: string): Promise<FirefoxBenchPage> {
  const { server, url } = await serveBundle(file)
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    extraPrefsFirefox: { 'network.captive-portal-service.enabled': false, 'network.connectivity-service.enabled': false },
  })
  const page = await browser.newPage()
  await page.goto(url)
  await page.waitForFunction((name: string) => typeof (window as unknown as Record<string, unknown>)[name] === 'function', {}, ready)
  return {
    evaluate: (fn, arg) => page.evaluate(fn as never, arg as never) as never,
    version: await browser.version(),
    async close() {
      await browser.close()
      server.close()
    },
  }
}

/**
 * Bundles `browser/<file>` and opens it in Debian's WebKitGTK MiniBrowser (over WebKitWebDriver),
 * as {@link openBenchPage} does in Chromium. `evaluate` sends `fn`'s source and its argument as
 * JSON through WebDriver, so both must survive that: no closures over the bench's scope.
 */
export async function openWebKitBenchPage(file: string, ready: string): Promise<FirefoxBenchPage> {
  const { server, url } = await serveBundle(file)
  const session = await startWebKit().catch((e: unknown) => {
    server.close()
    throw e
  })
  // The callback is WebDriver's (the script's last argument); an error is handed back as text.
  const run = (source: string, arg: unknown, timeoutMs: number) =>
    session.executeAsync(
      `const done = arguments[arguments.length - 1]; Promise.resolve().then(() => (${source})(arguments[0])).then((value) => done({ value }), (e) => done({ error: String(e && e.stack || e) }))`,
      [arg],
      timeoutMs,
    ) as Promise<{ value?: unknown; error?: string }>
  try {
    await session.navigate(url)
    for (let waited = 0; !(await run('(name) => typeof window[name] === "function"', ready, 10_000)).value; waited += 100) {
      if (waited > 30_000) throw new Error(`the WebKit page did not set window.${ready} within 30 s`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } catch (e) {
    await session.close()
    server.close()
    throw e
  }
  return {
    async evaluate(fn, arg) {
      const { value, error } = await run(fn.toString(), arg, 30 * 60_000)
      if (error !== undefined) throw new Error(`in WebKit: ${error}`)
      return value as never
    },
    version: `WebKitGTK ${session.version}`,
    async close() {
      await session.close()
      server.close()
    },
  }
}

/** Bundles `browser/<file>`, serves it and waits until the page has set `window[ready]`. */
export async function openBenchPage(file: string, ready: string): Promise<BenchPage> {
  const { server, url } = await serveBundle(file)
  const browser = await chromium.launch(chromiumLaunchOptions)
  const page = await browser.newPage()
  await page.goto(url)
  await page.waitForFunction((name) => typeof (window as unknown as Record<string, unknown>)[name] === 'function', ready)
  return {
    page,
    version: browser.version(),
    async close() {
      await browser.close()
      server.close()
    },
  }
}

/**
 * Starts Debian's Chromium over the on-disk profile `profileDir` (a real reload when the profile
 * was used before), opens `url`, waits until the page has set `window[ready]`, runs `use` and
 * closes the browser.
 * @returns what `use` returns.
 */
export async function withPersistentPage<T>(profileDir: string, url: string, ready: string, use: (page: Page) => Promise<T>): Promise<T> {
  const context = await chromium.launchPersistentContext(profileDir, chromiumLaunchOptions)
  try {
    const page = context.pages()[0] ?? (await context.newPage())
    await page.goto(url)
    await page.waitForFunction((name) => typeof (window as unknown as Record<string, unknown>)[name] === 'function', ready)
    return await use(page)
  } finally {
    await context.close()
  }
}

/**
 * Starts Debian's firefox-esr over the on-disk profile `profileDir` (a real reload when the profile
 * was used before), opens `url`, waits until the page has set `window[ready]`, runs `use` and
 * closes the browser: {@link withPersistentPage} in Firefox.
 * @returns what `use` returns.
 */
export async function withPersistentFirefoxPage<T>(profileDir: string, url: string, ready: string, use: (page: FirefoxBenchPage) => Promise<T>): Promise<T> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    userDataDir: profileDir,
    extraPrefsFirefox: { 'network.captive-portal-service.enabled': false, 'network.connectivity-service.enabled': false },
  })
  try {
    const page = await browser.newPage()
    await page.goto(url)
    await page.waitForFunction((name: string) => typeof (window as unknown as Record<string, unknown>)[name] === 'function', {}, ready)
    const version = await browser.version()
    return await use({ evaluate: (fn, arg) => page.evaluate(fn as never, arg as never) as never, version, close: () => browser.close() })
  } finally {
    await browser.close()
  }
}
