import { defineConfig } from 'vitest/config'

// In Node, IndexedDB comes from fake-indexeddb; vitest.browser.config.ts runs the same tests in Chromium.
export default defineConfig({
  test: {
    name: 'idb',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    exclude: ['test/**/*.browser.test.ts'],
    setupFiles: ['test/setup-fake-indexeddb.ts'],
  },
})
