// Runs every ```ts example of the package README against a real Redis (the tests' own).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, inject, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string)
const dir = join(root, 'node_modules', '.readme-examples')

describe('README examples', () => {
  it('are there to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2)
  })
  blocks.forEach((code, i) => {
    it(`example ${i + 1} runs without failing its assertions`, async () => {
      process.env.REDIS_URL = inject('redisUrl')
      mkdirSync(dir, { recursive: true })
      const file = join(dir, `example-${i + 1}.ts`)
      const source = code
        .replaceAll("from '@stowage/redis'", `from ${JSON.stringify(join(root, 'src', 'index.ts'))}`)
        // examples share one Redis with other tests: keep their keys apart
        .replaceAll("namespace: 'readme", `namespace: 'readme-${Math.random().toString(36).slice(2)}`)
        .replaceAll("'readme:rows'", '`${cache.namespace}:rows`')
      writeFileSync(file, source)
      await import(/* @vite-ignore */ pathToFileURL(file).href)
    })
  })
})
