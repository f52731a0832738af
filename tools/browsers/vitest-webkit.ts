import { defineBrowserProvider } from '@vitest/browser'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import type { BrowserProvider } from 'vitest/node'

/**
 * Vitest browser mode in real WebKit: Debian's WebKitGTK MiniBrowser, driven over classic WebDriver
 * by WebKitWebDriver (package webkit2gtk-driver; scripts/bootstrap.sh installs both, and xvfb).
 * MiniBrowser has no headless mode, so without a DISPLAY this starts its own Xvfb. Vitest's
 * webdriverio provider is not used: the registry has no release of it for our vitest version,
 * and three WebDriver calls (new session, navigate, delete) are all a test page needs.
 * WEBKIT_DRIVER_PATH and WEBKIT_BROWSER_PATH override the binaries.
 */
export function webkit() {
  return {
    enabled: true,
    headless: true,
    screenshotFailures: false,
    provider: defineBrowserProvider({ name: 'webkitgtk-webdriver', providerFactory: () => new WebKitProvider() }),
    instances: [{ browser: 'webkit' as const }],
  }
}

export const webkitDriverPath = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver'
export const webkitBrowserPath = process.env.WEBKIT_BROWSER_PATH ?? findMiniBrowser()

function findMiniBrowser(): string {
  for (const lib of ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib', '/usr/libexec']) {
    if (!existsSync(lib)) continue
    for (const dir of readdirSync(lib).filter((d) => d.startsWith('webkit2gtk-')).sort().reverse()) {
      if (existsSync(`${lib}/${dir}/MiniBrowser`)) return `${lib}/${dir}/MiniBrowser`
    }
  }
  return 'MiniBrowser'
}

// A browser that cannot open its display makes WebKitWebDriver wait forever instead of failing;
// below vitest's own 60 s wait for the page, so that this message is the one shown.
const SESSION_TIMEOUT = 30_000

class WebKitProvider implements BrowserProvider {
  readonly name = 'webkitgtk-webdriver'
  readonly supportsParallelism = false
  private session: Promise<{ driver: string; id: string }> | undefined
  private readonly children: ChildProcess[] = []
  private readonly killChildren = () => this.children.forEach((child) => child.kill())

  getCommandsContext() {
    return {}
  }

  async openPage(_sessionId: string, url: string) {
    this.session ??= this.start()
    const { driver, id } = await this.session
    await webdriver(`${driver}/session/${id}/url`, 'POST', { url })
  }

  async close() {
    const session = this.session
    this.session = undefined
    try {
      const started = await session?.catch(() => undefined) // a failed start was reported by openPage
      if (started) await webdriver(`${started.driver}/session/${started.id}`, 'DELETE')
    } finally {
      this.killChildren()
      process.off('exit', this.killChildren)
    }
  }

  private async start() {
    process.on('exit', this.killChildren)
    const display = process.env.DISPLAY || (await this.startXvfb())
    const port = await freePort()
    const driver = `http://127.0.0.1:${port}`
    this.spawn(webkitDriverPath, [`--port=${port}`], { ...process.env, DISPLAY: display })
    for (let waited = 0; !(await webdriver(`${driver}/status`, 'GET').then(() => true, () => false)); waited += 100) {
      if (waited > 10_000) throw new Error(`${webkitDriverPath} did not answer on port ${port}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const capabilities = { alwaysMatch: { 'webkitgtk:browserOptions': { binary: webkitBrowserPath, args: ['--automation'] } } }
    const { sessionId } = (await webdriver(`${driver}/session`, 'POST', { capabilities }, SESSION_TIMEOUT).catch((e: unknown) => {
      throw new Error(`${webkitDriverPath} did not start ${webkitBrowserPath} on DISPLAY=${display} within ${SESSION_TIMEOUT} ms`, { cause: e })
    })) as { sessionId: string }
    return { driver, id: sessionId }
  }

  private async startXvfb(): Promise<string> {
    const xvfb = this.spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], process.env, ['ignore', 'ignore', 'pipe', 'pipe'])
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

  private spawn(command: string, args: string[], env: NodeJS.ProcessEnv, stdio: Array<'ignore' | 'pipe' | 'inherit'> = ['ignore', 'ignore', 'inherit']) {
    const child = spawn(command, args, { env, stdio })
    this.children.push(child)
    return child
  }
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
