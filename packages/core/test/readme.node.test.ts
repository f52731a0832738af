// Runs every ```ts example of the package README against the sources, so the README stays true.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string)
const dir = join(root, 'node_modules', '.readme-examples')

describe('README examples', () => {
  it('are there to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4)
  })
  blocks.forEach((code, i) => {
    it(`example ${i + 1} runs without failing its assertions`, async () => {
      mkdirSync(dir, { recursive: true })
      const file = join(dir, `example-${i + 1}.ts`)
      const sources = code
        .replaceAll("from '@stowage/core'", `from ${JSON.stringify(join(root, 'src', 'index.ts'))}`)
        .replaceAll("from '@stowage/core/otel'", `from ${JSON.stringify(join(root, 'src', 'otel', 'index.ts'))}`)
      writeFileSync(file, sources)
      await import(/* @vite-ignore */ pathToFileURL(file).href)
    })
  })
})
