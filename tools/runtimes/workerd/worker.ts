// The Worker that workerd runs: the bundle puts @stowage/core's runtime-neutral test files in front
// of it (tools/runtimes/src/workerd.ts), with @stowage/core itself from its built browser entry.
// GET / runs them all and answers with the results as JSON.
import { run } from './harness.js'

export default {
  async fetch(): Promise<Response> {
    const results = await run()
    return Response.json({ userAgent: navigator.userAgent, results })
  },
}
