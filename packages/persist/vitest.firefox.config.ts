import { defineConfig } from 'vitest/config'
import { firefox } from '../../tools/browsers/vitest-firefox.js'

// The portable tests again (sign-outs, removal notices, the page lock among them), in a real
// Firefox (firefox-esr over WebDriver BiDi).
export default defineConfig({
  test: {
    name: 'persist:firefox',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.node.test.ts'],
    browser: firefox(),
  },
})
