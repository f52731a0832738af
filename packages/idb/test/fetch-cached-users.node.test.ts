// Two users on one browser profile (real Chromium, real IndexedDB, an HttpOnly cookie session):
// user A signs in and loads /api/me, signs out; user B signs in, and the server answers 401, 403,
// 404, 410, 503, nothing at all, or a redirect to another origin that serves A's record. Not one
// of A's values may reach B, whether the app gives fetchCached a per-user scope and signs out, or
// does neither. And a sign-out in one tab empties the other tab's in-process tier too.
import { envelopeResponse, fromNodeRequest, sendNodeResponse } from '@stowage/http'
import { createCodec } from '@stowage/core'
import { build } from 'esbuild'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumLaunchOptions } from '../../../tools/browsers/chromium.js'
import type { MeResult } from './pages/users.js'

const here = dirname(fileURLToPath(import.meta.url))
const codec = createCodec()
const record = (user: string) => ({ id: user, name: user === 'a' ? 'Ada' : 'Bob', email: `${user}@example.com` })

type Mode = 'ok' | 401 | 403 | 404 | 410 | 503 | 'offline' | 'redirect'
let mode: Mode = 'ok'
// While set, /api/me answers only once it resolves (a request still out when the user signs out).
let held: Promise<void> | undefined
// Called when a request reaches the server while `held` is set.
let arrived: (() => void) | undefined
const sessions = new Map<string, string>()
let app: Server
let elsewhere: Server
let origin: string
let otherOrigin: string
let browser: Browser

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)))
}

// The app's own server: the page, sign-in and sign-out, and /api/me as a Stowage server sends it
// for a signed-in user (private, max-age=0, Vary: Accept, Cookie).
async function handle(script: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', origin)
  const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1]
  if (url.pathname === '/users.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script)
  if (url.pathname === '/login') {
    const id = Math.random().toString(36).slice(2)
    sessions.set(id, url.searchParams.get('user')!)
    return void res.writeHead(204, { 'Set-Cookie': `sid=${id}; HttpOnly; Path=/; SameSite=Lax` }).end()
  }
  if (url.pathname === '/logout') {
    if (sid) sessions.delete(sid)
    return void res.writeHead(204, { 'Set-Cookie': 'sid=; HttpOnly; Path=/; Max-Age=0' }).end()
  }
  if (url.pathname !== '/api/me') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><script type="module" src="/users.js"></script>')
  if (mode === 'offline') return void req.socket.destroy()
  if (mode === 'redirect') return void res.writeHead(302, { Location: `${otherOrigin}/api/me` }).end()
  // no-store: Chromium's own HTTP cache would otherwise keep a 404 or 410 (heuristically cacheable) and answer with it later.
  if (typeof mode === 'number') return void res.writeHead(mode, { 'Cache-Control': 'no-store' }).end()
  const user = sid === undefined ? undefined : sessions.get(sid)
  if (held !== undefined) arrived?.()
  await held
  if (user === undefined) return void res.writeHead(401, { 'Cache-Control': 'no-store' }).end()
  await sendNodeResponse(res, await envelopeResponse(fromNodeRequest(req), codec.encode(record(user)), { cacheControl: 'private, max-age=0', vary: ['Cookie'] }))
}

beforeAll(async () => {
  const out = await build({ entryPoints: [join(here, 'pages', 'users.ts')], bundle: true, format: 'esm', platform: 'browser', write: false, target: 'es2022' })
  const script = out.outputFiles[0]!.text
  app = createServer((req, res) => void handle(script, req, res).catch(() => res.writeHead(500).end()))
  origin = await listen(app)
  // Another origin that answers with A's record to anyone, CORS open: what an open redirect would plant.
  elsewhere = createServer((_req, res) => void res.writeHead(200, { 'Content-Type': 'application/vnd.stowage', 'Access-Control-Allow-Origin': '*' }).end(codec.encode(record('a'))))
  otherOrigin = await listen(elsewhere)
  browser = await chromium.launch(chromiumLaunchOptions)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  for (const server of [app, elsewhere]) {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  }
})

async function open(pages = 1): Promise<Page[]> {
  const context = await browser.newContext()
  const opened: Page[] = []
  for (let i = 0; i < pages; i++) {
    const page = await context.newPage()
    await page.goto(origin)
    await page.waitForFunction(() => typeof window.app === 'object')
    opened.push(page)
  }
  return opened
}

const me = (page: Page, scope?: string): Promise<MeResult> => page.evaluate((s) => window.app.me(s), scope)
const valueOf = (result: MeResult) => ('value' in result ? result.value : undefined)
const BAD: Mode[] = [401, 403, 404, 410, 503, 'offline', 'redirect']

// Each test drives a real browser through many steps: 2-3.5 s alone, over 5 s in a busy CI run.
describe('two users on one browser profile', { timeout: 30_000 }, () => {
  for (const kind of [
    { name: 'an app that gives fetchCached the user as scope and signs out', scoped: true, signsOut: true },
    { name: 'an app that gives a scope but forgets to sign out', scoped: true, signsOut: false },
    { name: 'an app that does neither', scoped: false, signsOut: false },
  ]) {
    it(`${kind.name}: none of A's values ever reaches B, through 401, 403, 404, 410, 503, offline and a cross-origin redirect`, async () => {
      const [page] = (await open()) as [Page]
      const scope = (user: string) => (kind.scoped ? user : undefined)
      mode = 'ok'
      await page.evaluate((u) => window.app.login(u), 'a')
      expect(valueOf(await me(page, scope('a')))).toStrictEqual(record('a'))
      // A keeps working offline on their own copy when the app scopes it.
      mode = 'offline'
      const offlineA = await me(page, scope('a'))
      if (kind.scoped) expect(offlineA).toStrictEqual({ source: 'offline', value: record('a') })
      mode = 'ok'
      await page.evaluate((s) => window.app.logout(s), kind.signsOut ? 'a' : undefined)
      await page.evaluate((u) => window.app.login(u), 'b')

      const seenByB: MeResult[] = []
      for (const bad of BAD) {
        mode = bad
        seenByB.push(await me(page, scope('b')))
      }
      mode = 'ok'
      const own = await me(page, scope('b'))
      expect(own).toMatchObject({ value: record('b') })
      for (const bad of BAD) {
        mode = bad
        seenByB.push(await me(page, scope('b')))
      }
      mode = 'ok'
      const leaked = seenByB.filter((r) => (valueOf(r) as { id?: string } | undefined)?.id === 'a')
      expect(leaked).toStrictEqual([])
      // Every answer is an error or B's own record, and the statuses reach the app.
      expect(seenByB.filter((r) => 'error' in r && r.status !== undefined).map((r) => (r as { status: number }).status).slice(0, 5)).toStrictEqual([401, 403, 404, 410, 503])
      for (const r of seenByB) if ('value' in r) expect(r.value).toStrictEqual(record('b'))
      await page.context().close()
    })
  }

  it("a sign-out in one tab wipes the user's entries from IndexedDB, from the other tab's in-process tier, and their persisted state", async () => {
    const [one, two] = (await open(2)) as [Page, Page]
    mode = 'ok'
    await one.evaluate(() => window.app.login('a'))
    expect(valueOf(await me(one, 'a'))).toStrictEqual(record('a'))
    await one.evaluate(() => window.app.saveState('{"favourites":["fr"]}'))
    // Tab two holds A's record in its in-process tier.
    expect(await two.evaluate(() => window.app.peek('a', '/api/me'))).toStrictEqual(record('a'))
    await one.evaluate(() => window.app.logout('a'))
    await expect.poll(() => two.evaluate(() => window.app.peek('a', '/api/me')), { timeout: 3000 }).toBeUndefined()
    expect(await one.evaluate(() => window.app.peek('a', '/api/me'))).toBeUndefined()
    expect(await two.evaluate(() => window.app.readState())).toBeNull()
    // With the server unreachable, nothing of A's answers in either tab.
    mode = 'offline'
    for (const page of [one, two]) expect(await me(page, 'a')).toMatchObject({ error: 'STORE_ERROR' })
    mode = 'ok'
    await one.context().close()
  })

  it("a request sent before a sign-out and answered after it never stores A's record, so B never meets it", async () => {
    const [page] = (await open()) as [Page]
    mode = 'ok'
    await page.evaluate(() => window.app.login('a'))
    let release: () => void = () => {}
    held = new Promise((resolve) => (release = resolve))
    const out = new Promise<void>((resolve) => (arrived = resolve))
    const pending = page.evaluate(() => window.app.me('a'))
    await out // the request has reached the server, its answer held back
    await page.evaluate(() => window.app.logout('a'))
    release()
    held = undefined
    arrived = undefined
    expect(valueOf(await pending)).toStrictEqual(record('a')) // A's own request still gets A's answer
    expect(await page.evaluate(() => window.app.peek('a', '/api/me'))).toBeUndefined()
    await page.evaluate(() => window.app.login('b'))
    mode = 'offline'
    for (const scope of ['a', 'b', undefined]) expect(valueOf(await me(page, scope))).toBeUndefined()
    mode = 'ok'
    expect(valueOf(await me(page, 'b'))).toStrictEqual(record('b'))
    await page.context().close()
  })
})
