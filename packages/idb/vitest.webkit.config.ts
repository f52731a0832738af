import { defineConfig } from 'vitest/config'
import { webkit } from '../../tools/browsers/vitest-webkit.js'

// The portable tests again, in a real WebKit (WebKitGTK MiniBrowser over WebDriver).
export default defineConfig({
  test: {
    name: 'idb:webkit',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    exclude: ['test/**/*.node.test.ts'],
    browser: webkit(),
  },
})
