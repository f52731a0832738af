// Runs every ```ts example of the package README against the sources (IndexedDB from
// fake-indexeddb), so the README stays true.
import { describeReadmeExamples } from '@stowage/readme-examples'
import { fileURLToPath } from 'node:url'

describeReadmeExamples({
  root: fileURLToPath(new URL('..', import.meta.url)),
  atLeast: 3,
  sources: { '@stowage/persist/tanstack-query': 'src/tanstack-query/index.ts', '@stowage/persist/zustand': 'src/zustand/index.ts' },
  // a fresh database per run
  rewrite: (code) => code.replaceAll("dbName: 'my-app", `dbName: '${Math.random().toString(36).slice(2)}-my-app`),
})
