import { defineConfig } from 'vitest/config'

// In Node, IndexedDB comes from fake-indexeddb; vitest.browser.config.ts, vitest.firefox.config.ts and
// vitest.webkit.config.ts run the same tests in Chromium, Firefox and WebKit.
export default defineConfig({
  test: {
    name: 'idb',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    exclude: ['test/**/*.browser.test.ts'],
    setupFiles: ['test/setup-fake-indexeddb.ts'],
  },
})
