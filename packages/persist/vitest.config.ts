import { defineConfig } from 'vitest/config'

// In Node, IndexedDB comes from fake-indexeddb; vitest.browser.config.ts runs the React page tests
// (and the portable tests again) in Chromium.
export default defineConfig({
  test: {
    name: 'persist',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.browser.test.tsx'],
    setupFiles: ['test/setup-fake-indexeddb.ts'],
  },
})
