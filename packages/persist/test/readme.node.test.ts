// Runs every ```ts example of the package README against the sources (IndexedDB from
// fake-indexeddb), so the README stays true.
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
    expect(blocks.length).toBeGreaterThanOrEqual(3)
  })
  blocks.forEach((code, i) => {
    it(`example ${i + 1} runs without failing its assertions`, async () => {
      mkdirSync(dir, { recursive: true })
      const file = join(dir, `example-${i + 1}.ts`)
      const source = code
        .replaceAll("from '@stowage/persist/tanstack-query'", `from ${JSON.stringify(join(root, 'src', 'tanstack-query', 'index.ts'))}`)
        .replaceAll("from '@stowage/persist/zustand'", `from ${JSON.stringify(join(root, 'src', 'zustand', 'index.ts'))}`)
        // a fresh database per run
        .replaceAll("dbName: 'my-app", `dbName: '${Math.random().toString(36).slice(2)}-my-app`)
      writeFileSync(file, source)
      await import(/* @vite-ignore */ pathToFileURL(file).href)
    })
  })
})
