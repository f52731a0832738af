import { describe, expect, it } from 'vitest'
import { Reservoir } from '../src/scan/reservoir.js'

describe('Reservoir', () => {
  it('keeps a measurement made after a discard moved its item to another slot', () => {
    const r = new Reservoir<string, number>(10)
    const slots = ['a', 'b', 'c', 'd'].map((k) => r.offer(k))
    // 'a' fails: 'd' (the last) moves into its slot; its measurement still lands.
    r.discard(slots[0]!, 'a')
    r.measure(slots[1]!, 'b', 2)
    r.measure(slots[2]!, 'c', 3)
    r.measure(slots[3]!, 'd', 4)
    expect(r.measurements().sort()).toEqual([2, 3, 4])
    // And a discard of a moved item finds it.
    r.discard(slots[3]!, 'd')
    expect(r.measurements().sort()).toEqual([2, 3])
  })

  it('samples at most its size, every item with the same chance', () => {
    const counts = new Map<number, number>()
    for (let run = 0; run < 2000; run++) {
      const r = new Reservoir<number, number>(5)
      for (let i = 0; i < 20; i++) {
        const slot = r.offer(i)
        if (slot >= 0) r.measure(slot, i, i)
      }
      const got = r.measurements()
      expect(got.length).toBe(5)
      for (const i of got) counts.set(i, (counts.get(i) ?? 0) + 1)
    }
    // Each of 20 items is kept with probability 1/4: 500 of 2000 runs, give or take.
    for (let i = 0; i < 20; i++) expect(counts.get(i)).toBeGreaterThan(380)
    for (let i = 0; i < 20; i++) expect(counts.get(i)).toBeLessThan(620)
  })
})
