import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'

/**
 * How tests and benchmarks start WebKit: Debian's WebKitGTK MiniBrowser, driven over classic
 * WebDriver by WebKitWebDriver (package webkit2gtk-driver; scripts/bootstrap.sh installs both, and
 * xvfb). MiniBrowser has no headless mode, so without a DISPLAY this starts its own Xvfb.
 * WEBKIT_DRIVER_PATH and WEBKIT_BROWSER_PATH override the binaries.
 */
export const webkitDriverPath = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver'
export const webkitBrowserPath = process.env.WEBKIT_BROWSER_PATH ?? findMiniBrowser()

/** One MiniBrowser under WebKitWebDriver: the few WebDriver calls tests and benches use. */
export interface WebKitSession {
  /** Loads `url` in the browser's window and waits for its load event. */
  navigate(url: string): Promise<void>
  /**
   * Runs `script` in the page as WebDriver's Execute Async Script: its last argument is the
   * callback that ends it, the ones before are `args`. Waits up to `timeoutMs`.
   * @returns what the script handed its callback.
   */
  executeAsync(script: string, args: readonly unknown[], timeoutMs: number): Promise<unknown>
  /** The browser's version, as WebDriver reports it. */
  readonly version: string
  /** Ends the session and stops the browser, the driver and any Xvfb this started. */
  close(): Promise<void>
}

// A browser that cannot open its display makes WebKitWebDriver wait forever instead of failing;
// below vitest's own 60 s wait for the page, so that this message is the one shown.
const SESSION_TIMEOUT = 30_000

/** Starts WebKitWebDriver and a MiniBrowser session under it. */
export async function startWebKit(): Promise<WebKitSession> {
  const children: ChildProcess[] = []
  const killChildren = () => children.forEach((child) => child.kill())
  process.on('exit', killChildren)
  const stop = () => {
    killChildren()
    process.off('exit', killChildren)
  }
  try {
    const display = process.env.DISPLAY || (await startXvfb(children))
    const port = await freePort()
    const driver = `http://127.0.0.1:${port}`
    children.push(spawn(webkitDriverPath, [`--port=${port}`], { env: { ...process.env, DISPLAY: display }, stdio: ['ignore', 'ignore', 'inherit'] }))
    for (let waited = 0; !(await webdriver(`${driver}/status`, 'GET').then(() => true, () => false)); waited += 100) {
      if (waited > 10_000) throw new Error(`${webkitDriverPath} did not answer on port ${port}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const capabilities = { alwaysMatch: { 'webkitgtk:browserOptions': { binary: webkitBrowserPath, args: ['--automation'] } } }
    const started = (await webdriver(`${driver}/session`, 'POST', { capabilities }, SESSION_TIMEOUT).catch((e: unknown) => {
      throw new Error(`${webkitDriverPath} did not start ${webkitBrowserPath} on DISPLAY=${display} within ${SESSION_TIMEOUT} ms`, { cause: e })
    })) as { sessionId: string; capabilities?: { browserVersion?: string } }
    const session = `${driver}/session/${started.sessionId}`
    return {
      version: started.capabilities?.browserVersion ?? 'unknown',
      navigate: async (url) => void (await webdriver(`${session}/url`, 'POST', { url })),
      async executeAsync(script, args, timeoutMs) {
        await webdriver(`${session}/timeouts`, 'POST', { script: timeoutMs })
        return webdriver(`${session}/execute/async`, 'POST', { script, args }, timeoutMs + 10_000)
      },
      async close() {
        try {
          await webdriver(session, 'DELETE')
        } finally {
          stop()
        }
      },
    }
  } catch (e) {
    stop()
    throw e
  }
}

function findMiniBrowser(): string {
  for (const lib of ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib', '/usr/libexec']) {
    if (!existsSync(lib)) continue
    for (const dir of readdirSync(lib).filter((d) => d.startsWith('webkit2gtk-')).sort().reverse()) {
      if (existsSync(`${lib}/${dir}/MiniBrowser`)) return `${lib}/${dir}/MiniBrowser`
    }
  }
  return 'MiniBrowser'
}

async function startXvfb(children: ChildProcess[]): Promise<string> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { env: process.env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] })
  children.push(xvfb)
  const number = await new Promise<string>((resolve, reject) => {
    let out = ''
    xvfb.stdio[3]!.on('data', (chunk) => {
      out += String(chunk)
      if (out.includes('\n')) resolve(out.trim())
    })
    xvfb.on('error', reject)
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited with ${code} (install the xvfb package, or set DISPLAY)`)))
  })
  return `:${number}`
}

async function webdriver(url: string, method: 'GET' | 'POST' | 'DELETE', body?: unknown, timeout = 30_000): Promise<unknown> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeout),
  })
  const { value } = (await response.json()) as { value: { error?: string; message?: string } | null }
  if (!response.ok) throw new Error(`WebDriver ${method} ${new URL(url).pathname}: ${value?.error}: ${value?.message}`)
  return value
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}
