import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { chromium } from '../../vitest.chromium.js'

// The portable tests again, in a real Chromium, with the portable platform file.
export default defineConfig({
  resolve: { alias: { '#platform': fileURLToPath(new URL('./src/codec/platform/portable.ts', import.meta.url)) } },
  test: {
    name: 'core:browser',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.node.test.ts'],
    browser: chromium(),
  },
})
