import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    name: 'redis',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Fault tests stop and start servers; files run one at a time so timings stay sane on 2 cores.
    fileParallelism: false,
  },
})
