// Runs every ```ts example of the package README.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const blocks = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string)
const dir = join(root, 'node_modules', '.readme-examples')

describe('README examples', () => {
  it('are there to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2)
  })
  blocks.forEach((code, i) => {
    it(`example ${i + 1} runs without failing its assertions`, async () => {
      mkdirSync(dir, { recursive: true })
      const file = join(dir, `example-${i + 1}.ts`)
      writeFileSync(file, code.replaceAll("from '@stowage/http'", `from ${JSON.stringify(join(root, 'src', 'index.ts'))}`))
      await import(/* @vite-ignore */ pathToFileURL(file).href)
    })
  })
})
