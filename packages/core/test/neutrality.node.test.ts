import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const src = join(dirname(fileURLToPath(import.meta.url)), '../src')

/** Every source file the portable entry reaches through its relative imports. */
function reachable(entry: string): Map<string, string> {
  const seen = new Map<string, string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    const text = readFileSync(file, 'utf8')
    seen.set(file, text)
    for (const [, spec] of text.matchAll(/(?:import|export)[^'"]*from\s+'([^']+)'/g)) {
      if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')))
      // What a browser bundle gets for the package's `#platform` import (package.json "imports").
      if (spec === '#platform') visit(join(src, 'codec/platform/portable.ts'))
    }
  }
  visit(join(src, entry))
  return seen
}

/**
 * The identifiers `Buffer` and `process` a file's code uses (types too), parsed, so that comments
 * and messages may name them: an error message that says "pass a Buffer" is not a use of one.
 */
function nodeGlobals(file: string, text: string): string[] {
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && (node.text === 'Buffer' || node.text === 'process')) found.push(`${node.text} at ${node.getStart()}`)
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true))
  return found
}

it('the identifier scan finds uses, not words in comments or strings', () => {
  expect(nodeGlobals('a.ts', "// Buffer\nconst a = 'a Buffer'; const b = `${process.env.X}`; const c: Buffer = globalThis.Buffer.from('')")).toHaveLength(3)
})

describe('the entry, with the platform a browser gets, is runtime-neutral', () => {
  const files = reachable('index.ts')

  it('reaches the codec and the portable platform (the scan is not vacuous)', () => {
    expect([...files.keys()].map((f) => f.slice(src.length + 1))).toEqual(
      expect.arrayContaining(['codec/encoder.ts', 'codec/decoder.ts', 'codec/platform/portable.ts']),
    )
    expect([...files.keys()].map((f) => f.slice(src.length + 1))).not.toContain('codec/platform/node.ts')
  })

  it('imports no node: module and nothing but fflate from outside (types aside: they are erased)', () => {
    for (const [file, text] of files) {
      for (const [statement, spec] of text.matchAll(/^(?:import|export)[^;]*?from\s+'([^']+)'/gm)) {
        const typesOnly = /^(?:import|export) type /.test(statement)
        expect(spec!.startsWith('.') || spec === 'fflate' || spec === '#platform' || (typesOnly && spec === '@standard-schema/spec'), `${file} imports ${spec}`).toBe(true)
      }
    }
  })

  it('maps #platform to the portable file for browsers, Deno and by default, to native zlib only on Node (and Bun)', () => {
    const imports = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8')).imports['#platform']
    expect(Object.keys(imports)).toStrictEqual(['browser', 'deno', 'node', 'import', 'require'])
    expect(imports.browser.import).toBe('./dist/platform-portable.js')
    expect(imports.deno.import).toBe('./dist/platform-portable.js')
    expect(imports.import).toBe('./dist/platform-portable.js')
    expect(imports.node.import).toBe('./dist/platform-node.js')
  })

  it('never uses Buffer or process (its messages may name them)', () => {
    for (const [file, text] of files) expect(nodeGlobals(file, text), file).toStrictEqual([])
  })
})

describe('the otel entry (@stowage/core/otel)', () => {
  const files = reachable('otel/index.ts')

  it('is runtime-neutral too, importing nothing from outside but @opentelemetry/api (types aside)', () => {
    expect([...files.keys()].map((f) => f.slice(src.length + 1))).toContain('otel/instrument.ts')
    for (const [file, text] of files) {
      for (const [statement, spec] of text.matchAll(/^(?:import|export)[^;]*?from\s+'([^']+)'/gm)) {
        const typesOnly = /^(?:import|export) type /.test(statement)
        expect(spec!.startsWith('.') || spec === '@opentelemetry/api' || (typesOnly && spec === '@standard-schema/spec'), `${file} imports ${spec}`).toBe(true)
      }
      expect(nodeGlobals(file, text), file).toStrictEqual([])
    }
  })

  it('is never reached from the main entry', () => {
    expect([...reachable('index.ts').keys()].filter((f) => f.startsWith(join(src, 'otel')))).toStrictEqual([])
  })
})
