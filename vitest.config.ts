import { defineConfig } from 'vitest/config'

// One command runs every package's tests: each package's Node project, and its browser
// project (real Chromium) where it has one.
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'packages/*/vitest.browser.config.ts', 'apps/*/vitest.config.ts'],
  },
})
