// Runs every ```ts example of the package README.
import { describeReadmeExamples } from '@stowage/readme-examples'
import { fileURLToPath } from 'node:url'

describeReadmeExamples({ root: fileURLToPath(new URL('..', import.meta.url)), atLeast: 2, sources: { '@stowage/http': 'src/index.ts' } })
