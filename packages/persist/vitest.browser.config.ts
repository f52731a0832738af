import { defineConfig } from 'vitest/config'
import { chromium } from '../../tools/browsers/vitest-chromium.js'

// A React + TanStack Query page and a Zustand store in a real Chromium, over its real IndexedDB,
// and the portable tests again.
export default defineConfig({
  test: {
    name: 'persist:browser',
    include: ['test/**/*.test.ts', 'test/**/*.browser.test.tsx'],
    exclude: ['test/**/*.node.test.ts'],
    browser: chromium(),
  },
})
