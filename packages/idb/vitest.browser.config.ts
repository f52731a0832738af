import { playwright } from '@vitest/browser-playwright'
import { defineConfig } from 'vitest/config'

// The portable tests again, in a real Chromium (Debian's /usr/bin/chromium; see .ci/run).
export default defineConfig({
  test: {
    name: 'idb:browser',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.node.test.ts'],
    browser: {
      enabled: true,
      headless: true,
      screenshotFailures: false,
      provider: playwright({
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        },
      }),
      instances: [{ browser: 'chromium' }],
    },
  },
})
