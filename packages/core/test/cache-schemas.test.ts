// Schema key patterns: `*` matches any run of characters, and a read costs time linear in the key
// whatever the pattern (keys are often request paths, so anyone can choose them).
import { describe, expect, it } from 'vitest'
import { createCache, StowageErrorCode, type Cache } from '../src/index.js'
import { matchesGlob } from '../src/cache/schemas.js'
import { record } from './cache-helpers.js'

// A Standard Schema that refuses everything, so a read tells whether a pattern matched its key.
const refuse = { '~standard': { version: 1 as const, vendor: 'test', validate: () => ({ issues: [{ message: 'refused' }] }) } }

// What a glob means, as a regular expression: the reference for short keys only.
const reference = (pattern: string, key: string) => new RegExp(`^${pattern.split('*').map((t) => t.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`).test(key)

describe('schema key patterns', () => {
  it('match as a glob whose * is any run of characters, the empty one included', () => {
    const patterns = ['', '*', '**', 'a', 'a*', '*a', 'a*b', 'a*b*c', '*ab*', 'ab*ab', 'a*a*a', 'x:*:y', '*:*:*', 'a**b', '.*', '[*]']
    const keys = ['', 'a', 'b', 'ab', 'aab', 'abab', 'abc', 'acbc', 'aXbYc', 'abcb', 'ababab', 'aaa', 'aa', 'x::y', 'x:1:y', 'x:1:2:y', ':::', 'a:b:c', 'a.b', '.', '[]', '[x]', 'xab']
    for (const pattern of patterns) {
      for (const key of keys) expect([pattern, key, matchesGlob(pattern.split('*'), key)]).toStrictEqual([pattern, key, reference(pattern, key)])
    }
  })

  it('agree with the regular expression on random keys and patterns', () => {
    let seed = 7
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    const text = (length: number, alphabet: string) => Array.from({ length }, () => alphabet[random(alphabet.length)]).join('')
    for (let i = 0; i < 5000; i++) {
      const pattern = text(random(8), 'ab:*')
      const key = text(random(12), 'ab:')
      expect([pattern, key, matchesGlob(pattern.split('*'), key)]).toStrictEqual([pattern, key, reference(pattern, key)])
    }
  })

  it('read a 21 KB key against a pattern of several * at once (a regular expression took seconds per read)', async () => {
    const cache = createCache({ namespace: 'globs', schemas: { 'org:*:team:*:member:*:profile': refuse } }) as unknown as Cache
    const errors = record(cache, 'error')
    // Almost a match many times over, never ending in ":profile": the worst case for backtracking.
    const near = 'org:' + ':team::member:'.repeat(1500)
    expect(near.length).toBeGreaterThan(21_000)
    await cache.set(near, 1)
    expect(await cache.get(near)).toBe(1)
    const matching = `${near}:profile`
    await cache.set(matching, 1)
    expect(await cache.get(matching)).toBeUndefined()
    // The value fails its schema: reported at the write (one schema rule everywhere) and at the read.
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.every((e) => e.error.code === StowageErrorCode.SCHEMA_MISMATCH && e.key === matching)).toBe(true)
  })
})
