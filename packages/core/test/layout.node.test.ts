// The house's layout rules for the Cache (STYLE.md "A façade stays a few hundred lines"), checked on
// the sources: the façade stays short, and the helpers it delegates to never call back into it.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dir = join(dirname(fileURLToPath(import.meta.url)), '../src/cache')
const files = new Map(readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => [f, readFileSync(join(dir, f), 'utf8')]))

// The files of src/cache that `file` imports (types too: a knot of types reads as one file).
function imports(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)[^;]*?from\s+'\.\/([^']+)\.js'/gm)].map(([, name]) => `${name}.ts`)
}

describe('the Cache façade and its helpers', () => {
  it('the façade (cache/cache.ts) stays a few hundred lines: at most 400', () => {
    const lines = (files.get('cache.ts') as string).split('\n').length
    expect(lines).toBeLessThanOrEqual(400)
  })

  it('no helper imports the façade: only create-cache.ts, which builds it', () => {
    const importers = [...files].filter(([, text]) => imports(text).includes('cache.ts')).map(([name]) => name)
    expect(importers).toEqual(['create-cache.ts'])
  })

  it('the façade delegates to helpers of its own (the scan is not vacuous)', () => {
    expect(imports(files.get('cache.ts') as string)).toEqual(expect.arrayContaining(['reads.ts', 'writes.ts', 'bytes-io.ts', 'bundle.ts', 'cache-observer.ts']))
  })

  it('no two files of src/cache import each other', () => {
    const knots: string[] = []
    for (const [name, text] of files) {
      for (const other of imports(text)) if (other > name && imports(files.get(other) ?? '').includes(name)) knots.push(`${name} <-> ${other}`)
    }
    expect(knots).toEqual([])
  })
})
