import { defineConfig } from 'vitest/config'

// One command runs every package's tests: each package's Node project, and its browser
// projects where it has them: real Chromium, Firefox (firefox-esr) and WebKit (WebKitGTK).
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'packages/*/vitest.browser.config.ts',
      'packages/*/vitest.firefox.config.ts',
      'packages/*/vitest.webkit.config.ts',
      'apps/*/vitest.config.ts',
    ],
  },
})
