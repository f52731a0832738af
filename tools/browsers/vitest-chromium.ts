import { playwright } from '@vitest/browser-playwright'
import { chromiumLaunchOptions } from './chromium.js'

/** Vitest browser mode in real Chromium (see chromium.ts); shared by every package's vitest.browser.config.ts. */
export function chromium() {
  return {
    enabled: true,
    headless: true,
    screenshotFailures: false,
    provider: playwright({
      launchOptions: chromiumLaunchOptions,
    }),
    instances: [{ browser: 'chromium' as const }],
  }
}
