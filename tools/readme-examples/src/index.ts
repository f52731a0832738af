// The one README example runner: every ```ts block of a package's README is written out as a
// module and imported, with the package's own imports pointed at its sources, so a README that
// stops being true fails the package's tests.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

/** Options of {@link describeReadmeExamples}. */
export interface ReadmeExamplesOptions {
  /** The package's folder, where README.md is. */
  readonly root: string
  /** The fewest ```ts blocks the README must have (a README that lost its examples fails). */
  readonly atLeast: number
  /** The package's own import specifiers, each with the source file (relative to `root`) it stands for. */
  readonly sources: Readonly<Record<string, string>>
  /** Any other change an example needs to run here (keys of its own on a shared server, say). Defaults to none. */
  readonly rewrite?: (code: string) => string
  /** Runs before each example (setting the environment it reads). Defaults to nothing. */
  readonly before?: () => void
}

/** Declares one test per ```ts block of `root`/README.md; call it at the top level of a test file. */
export function describeReadmeExamples(options: ReadmeExamplesOptions): void {
  const { root, atLeast, sources, rewrite = (code) => code, before } = options
  const blocks = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string)
  const dir = join(root, 'node_modules', '.readme-examples')
  describe('README examples', () => {
    it('are there to run', () => {
      expect(blocks.length).toBeGreaterThanOrEqual(atLeast)
    })
    blocks.forEach((code, i) => {
      it(`example ${i + 1} runs without failing its assertions`, async () => {
        before?.()
        mkdirSync(dir, { recursive: true })
        const file = join(dir, `example-${i + 1}.ts`)
        let source = rewrite(code)
        for (const [specifier, path] of Object.entries(sources)) source = source.replaceAll(`from '${specifier}'`, `from ${JSON.stringify(join(root, path))}`)
        writeFileSync(file, source)
        await import(/* @vite-ignore */ pathToFileURL(file).href)
      })
    })
  })
}
