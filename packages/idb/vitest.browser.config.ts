import { defineConfig } from 'vitest/config'
import { chromium } from '../../tools/browsers/vitest-chromium.js'

// The portable tests again, in a real Chromium.
export default defineConfig({
  test: {
    name: 'idb:browser',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    exclude: ['test/**/*.node.test.ts'],
    browser: chromium(),
  },
})
