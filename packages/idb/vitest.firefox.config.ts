import { defineConfig } from 'vitest/config'
import { firefox } from '../../tools/browsers/vitest-firefox.js'

// The portable tests again, in a real Firefox (firefox-esr over WebDriver BiDi).
export default defineConfig({
  test: {
    name: 'idb:firefox',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    exclude: ['test/**/*.node.test.ts'],
    browser: firefox(),
  },
})
