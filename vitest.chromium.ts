import { playwright } from '@vitest/browser-playwright'

/**
 * Vitest browser mode in real Chromium: Debian's /usr/bin/chromium (scripts/bootstrap.sh installs
 * it; test tools cannot download browsers here), with the flags this closed network needs.
 * Shared by every package's vitest.browser.config.ts.
 */
export function chromium() {
  return {
    enabled: true,
    headless: true,
    screenshotFailures: false,
    provider: playwright({
      launchOptions: {
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      },
    }),
    instances: [{ browser: 'chromium' as const }],
  }
}
