// Runs every ```ts example of the package README against a real Redis (the tests' own).
import { describeReadmeExamples } from '@stowage/readme-examples'
import { fileURLToPath } from 'node:url'
import { inject } from 'vitest'

describeReadmeExamples({
  root: fileURLToPath(new URL('..', import.meta.url)),
  atLeast: 2,
  sources: { '@stowage/redis': 'src/index.ts' },
  before: () => {
    process.env.REDIS_URL = inject('redisUrl')
  },
  // examples share one Redis with other tests: keep their keys apart
  rewrite: (code) =>
    code.replaceAll("namespace: 'readme", `namespace: 'readme-${Math.random().toString(36).slice(2)}`).replaceAll("'readme:rows'", '`${cache.namespace}:rows`'),
})
