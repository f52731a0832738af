// Runs every ```ts example of the package README against the sources, so the README stays true.
import { describeReadmeExamples } from '@stowage/readme-examples'
import { fileURLToPath } from 'node:url'

describeReadmeExamples({
  root: fileURLToPath(new URL('..', import.meta.url)),
  atLeast: 4,
  sources: { '@stowage/core': 'src/index.ts', '@stowage/core/otel': 'src/otel/index.ts' },
})
