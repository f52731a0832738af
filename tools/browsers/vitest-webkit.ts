import { defineBrowserProvider } from '@vitest/browser'
import type { BrowserProvider } from 'vitest/node'
import { startWebKit, type WebKitSession } from './webkit.js'

/**
 * Vitest browser mode in real WebKit: Debian's WebKitGTK MiniBrowser over WebKitWebDriver
 * (./webkit.ts). Vitest's webdriverio provider is not used: the registry has no release of it for
 * our vitest version, and three WebDriver calls (new session, navigate, delete) are all a test
 * page needs.
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

class WebKitProvider implements BrowserProvider {
  readonly name = 'webkitgtk-webdriver'
  readonly supportsParallelism = false
  private session: Promise<WebKitSession> | undefined

  getCommandsContext() {
    return {}
  }

  async openPage(_sessionId: string, url: string) {
    this.session ??= startWebKit()
    await (await this.session).navigate(url)
  }

  async close() {
    const session = this.session
    this.session = undefined
    const started = await session?.catch(() => undefined) // a failed start was reported by openPage
    await started?.close()
  }
}
