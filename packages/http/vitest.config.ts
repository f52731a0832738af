import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // What the package's `#sha256` import gives on Node (package.json "imports").
  resolve: { alias: { '#sha256': fileURLToPath(new URL('./src/platform/sha256-node.ts', import.meta.url)) } },
  test: {
    name: 'http',
    include: ['test/**/*.test.ts'],
  },
})
