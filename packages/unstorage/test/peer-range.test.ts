// The driver cases run on the lowest unstorage of the peer range (an npm: alias) and on the
// catalog's: this holds the alias to the range's lower bound and the catalog's to the range, so
// the README's "tested at both ends" stays true when either moves.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { installedVersion } from './installed-version.js'

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { peerDependencies: Record<string, string> }
const range = manifest.peerDependencies.unstorage ?? ''

describe('the unstorage versions the tests run', () => {
  it('include the lowest of the peer range, through the unstorage-1.17.0 alias', () => {
    expect(range).toMatch(/^\^\d+\.\d+\.\d+$/)
    expect(installedVersion('unstorage-1.17.0')).toBe(range.slice(1))
  })

  it("include the catalog's, inside the peer range (same major, not below its lowest)", () => {
    const [major, minor, patch] = range.slice(1).split('.').map(Number) as [number, number, number]
    const [cMajor, cMinor, cPatch] = installedVersion('unstorage').split('.').map(Number) as [number, number, number]
    expect(cMajor).toBe(major)
    expect(cMinor * 1e6 + cPatch).toBeGreaterThanOrEqual(minor * 1e6 + patch)
  })
})
