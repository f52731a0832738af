import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // The sources under test use the Node platform file, as the package's "node" condition does.
  resolve: { alias: { '#platform': fileURLToPath(new URL('./src/codec/platform/node.ts', import.meta.url)) } },
  test: {
    name: 'core',
    include: ['test/**/*.test.ts'],
    // Some tests decode hostile or very large inputs (seconds on a shared 2-core machine under a
    // full run); the time limit is a hang guard, not a speed target.
    testTimeout: 30_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
