import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { startRedisServer } from '@stowage/redis-server'

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string
  }
}

const root = fileURLToPath(new URL('..', import.meta.url))

function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }
  return newest
}

// The tests drive the built binary: refuse to test a missing or stale one.
// Every run gets its own redis-server; tests still keep to their own key prefixes.
export default async function setup(project: TestProject) {
  let built = 0
  try {
    built = statSync(join(root, 'dist/cli.js')).mtimeMs
  } catch {}
  if (built < newestSource(join(root, 'src'))) throw new Error('packages/cli/dist/cli.js is missing or older than src/: run `pnpm --filter @stowage/cli build` first')
  const server = await startRedisServer()
  project.provide('redisUrl', server.url)
  return () => server.stop()
}
