import { defineBrowserProvider } from '@vitest/browser'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import type { BrowserProvider, TestProject } from 'vitest/node'

/**
 * Vitest browser mode in real Firefox: Debian's firefox-esr (scripts/bootstrap.sh installs it;
 * FIREFOX_PATH overrides), launched by puppeteer-core and driven over WebDriver BiDi. Vitest's
 * own webdriverio provider would need geckodriver, which Debian does not package and whose npm
 * package downloads the binary from GitHub; puppeteer speaks BiDi to Firefox directly.
 */
export function firefox() {
  return {
    enabled: true,
    headless: true,
    screenshotFailures: false,
    provider: defineBrowserProvider({ name: 'firefox-bidi', providerFactory: (project) => new FirefoxProvider(project) }),
    instances: [{ browser: 'firefox' as const }],
  }
}

export const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr'

class FirefoxProvider implements BrowserProvider {
  readonly name = 'firefox-bidi'
  readonly supportsParallelism = false
  private browser: Promise<Browser> | undefined
  private readonly pages = new Map<string, Page>()

  constructor(private readonly project: TestProject) {}

  getCommandsContext(sessionId: string) {
    return { page: this.pages.get(sessionId) }
  }

  async openPage(sessionId: string, url: string) {
    this.browser ??= puppeteer.launch({
      browser: 'firefox',
      executablePath: firefoxPath,
      headless: this.project.config.browser.headless,
      // This network reaches no Mozilla service: do not try.
      extraPrefsFirefox: { 'network.captive-portal-service.enabled': false, 'network.connectivity-service.enabled': false },
    })
    const browser = await this.browser
    await this.pages.get(sessionId)?.close()
    const page = await browser.newPage()
    this.pages.set(sessionId, page)
    await page.goto(url, { timeout: 0 })
  }

  async close() {
    const browser = this.browser
    this.browser = undefined
    this.pages.clear()
    await (await browser)?.close()
  }
}
