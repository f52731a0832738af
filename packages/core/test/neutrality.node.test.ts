import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
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

  it('never names Buffer or process', () => {
    for (const [file, text] of files) {
      const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '')
      expect(/\bBuffer\b|\bprocess\b/.test(code), file).toBe(false)
    }
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
      const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '')
      expect(/\bBuffer\b|\bprocess\b/.test(code), file).toBe(false)
    }
  })

  it('is never reached from the main entry', () => {
    expect([...reachable('index.ts').keys()].filter((f) => f.startsWith(join(src, 'otel')))).toStrictEqual([])
  })
})
