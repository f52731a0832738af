// Claims decide whether what a read or load found may still be stored: a change of the key that
// starts while the claim is open must take that right away, and nothing else may.
import { describe, expect, it } from 'vitest'
import { Claims } from '../src/cache/claims.js'

// How many keys the book holds records for (only keys with open claims should be there).
const keysHeld = (claims: Claims) => (claims as unknown as { open: Map<string, unknown> }).open.size

describe('Claims', () => {
  it('supersedes every open claim on a key that changes, and no claim on another key', () => {
    const claims = new Claims()
    const a1 = claims.begin('ns:a')
    const a2 = claims.begin('ns:a')
    const b = claims.begin('ns:b')
    claims.supersede('ns:a')
    expect([a1.superseded, a2.superseded, b.superseded]).toStrictEqual([true, true, false])
    expect(claims.end(a1)).toBe(false)
    expect(claims.end(b)).toBe(true)
  })

  it('gives a claim begun after a change its own right, which a stale claim ending cannot take away', () => {
    const claims = new Claims()
    const old = claims.begin('ns:a')
    claims.supersede('ns:a')
    const fresh = claims.begin('ns:a')
    expect(fresh.superseded).toBe(false)
    expect(claims.end(old)).toBe(false)
    // The old claim's end must not forget the fresh one: the next change still reaches it.
    claims.supersede('ns:a')
    expect(fresh.superseded).toBe(true)
    expect(claims.end(fresh)).toBe(false)
  })

  it('ignores a second end of the same claim, which must not close another claim on the key', () => {
    const claims = new Claims()
    const first = claims.begin('ns:a')
    const second = claims.begin('ns:a')
    expect(claims.end(first)).toBe(true)
    expect(claims.end(first)).toBe(true)
    claims.supersede('ns:a')
    expect(second.superseded).toBe(true)
  })

  it('supersedes the claims under a prefix on a clear, and keeps only keys with open claims', () => {
    const claims = new Claims()
    const inside = [claims.begin('ns:user-1:a'), claims.begin('ns:user-1:b')]
    const outside = claims.begin('ns:user-2:a')
    claims.supersedeAll('ns:user-1:')
    expect(inside.map((c) => c.superseded)).toStrictEqual([true, true])
    expect(outside.superseded).toBe(false)
    for (const claim of [...inside, outside]) claims.end(claim)
    expect(keysHeld(claims)).toBe(0)
    for (let i = 0; i < 100; i++) claims.end(claims.begin(`ns:k${i}`))
    expect(keysHeld(claims)).toBe(0)
  })
})
