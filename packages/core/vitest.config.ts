import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // The sources under test use the Node platform file, as the package's "node" condition does.
  resolve: { alias: { '#platform': fileURLToPath(new URL('./src/codec/platform/node.ts', import.meta.url)) } },
  test: {
    name: 'core',
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
