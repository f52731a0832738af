// Runs every ```ts example of the package README (the next.config modules are ```js: they need a Next app).
import { describeReadmeExamples } from '@stowage/readme-examples'
import { fileURLToPath } from 'node:url'

describeReadmeExamples({
  root: fileURLToPath(new URL('..', import.meta.url)),
  atLeast: 1,
  sources: { '@stowage/next': 'src/index.ts' },
})
