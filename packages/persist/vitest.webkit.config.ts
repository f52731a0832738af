import { defineConfig } from 'vitest/config'
import { webkit } from '../../tools/browsers/vitest-webkit.js'

// The portable tests again (sign-outs, removal notices, the page lock among them), in a real
// WebKit (WebKitGTK MiniBrowser over WebDriver).
export default defineConfig({
  test: {
    name: 'persist:webkit',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.node.test.ts'],
    browser: webkit(),
  },
})
