import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { chromium } from '../../tools/browsers/vitest-chromium.js'

// The portable tests again, in a real Chromium, with the portable platform file.
export default defineConfig({
  resolve: { alias: { '#platform': fileURLToPath(new URL('./src/codec/platform/portable.ts', import.meta.url)) } },
  test: {
    name: 'core:browser',
    include: ['test/**/*.test.ts'],
    // Some tests decode hostile or very large inputs (seconds on a shared 2-core machine under a
    // full run); the time limit is a hang guard, not a speed target.
    testTimeout: 30_000,
    exclude: ['test/**/*.node.test.ts'],
    browser: chromium(),
  },
})
