import type { TestProject } from 'vitest/node'
import { startEnvelopeServer } from './envelope-server.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The base URL of test/envelope-server.ts. */
    envelopeServer: string
  }
}

/** Starts the envelope server once per project, in Node, for tests in Node and in browsers alike. */
export default async function setup(project: TestProject) {
  const server = await startEnvelopeServer()
  project.provide('envelopeServer', server.url)
  return () => server.close()
}
