// Runs every ```ts example of the package README, the Redis ones against the tests' own Redis.
import { describeReadmeExamples } from '@stowage/readme-examples'
import { fileURLToPath } from 'node:url'
import { inject } from 'vitest'

describeReadmeExamples({
  root: fileURLToPath(new URL('..', import.meta.url)),
  atLeast: 1,
  sources: { '@stowage/unstorage': 'src/index.ts' },
  before: () => {
    process.env.REDIS_URL = inject('redisUrl')
  },
  // examples share one Redis with other tests: keep their keys apart
  rewrite: (code) => code.replaceAll("base: 'app'", `base: 'readme-${Math.random().toString(36).slice(2)}'`),
})
