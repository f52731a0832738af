import fc from 'fast-check'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { keySlot } from '../src/key-slot.js'
import { bySlot } from '../src/slots.js'
import { ODD_KEYS } from './odd-keys.js'

// The slots the store groups keys by, against the slots a real cluster node computes
// (CLUSTER KEYSLOT), over keys with braces in every position and non-ASCII text.
let node: Redis
beforeAll(() => {
  node = new Redis(inject('clusterNodes')[0]!)
})
afterAll(async () => {
  await node.quit()
})

async function redisSlots(keys: readonly string[]): Promise<number[]> {
  const pipeline = node.pipeline()
  for (const key of keys) pipeline.cluster('KEYSLOT', key)
  return ((await pipeline.exec()) ?? []).map(([error, slot]) => {
    if (error) throw error
    return slot as number
  })
}

// Keys built mostly of braces and a few letters, so that every arrangement turns up.
const braceKeys = fc.string({ unit: fc.constantFrom('{', '}', 'a', 'b', ':', 'é', '😀'), minLength: 1, maxLength: 12 })
const anyKeys = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 })

describe('hash slots, as Redis Cluster computes them', () => {
  it('groups keys so that each group is one Redis slot and each slot one group, odd hash tags included', async () => {
    const keys = [...ODD_KEYS, ...fc.sample(braceKeys, { numRuns: 3000, seed: 21 }), ...fc.sample(anyKeys, { numRuns: 1000, seed: 7 })]
    const slots = await redisSlots(keys)
    const groups = bySlot(keys, true)
    for (const group of groups) {
      const inGroup = new Set(group.map((i) => slots[i]))
      expect(inGroup.size, `keys ${group.map((i) => JSON.stringify(keys[i])).join(', ')}`).toBe(1)
    }
    expect(groups.length).toBe(new Set(slots).size)
    expect(groups.flat().sort((a, b) => a - b)).toStrictEqual(keys.map((_, i) => i))
  })

  it('computes the slot CLUSTER KEYSLOT answers, for odd, generated and non-ASCII keys', async () => {
    const keys = [...ODD_KEYS, ...fc.sample(braceKeys, { numRuns: 3000, seed: 5 }), ...fc.sample(anyKeys, { numRuns: 2000, seed: 9 })]
    const slots = await redisSlots(keys)
    const wrong = keys.filter((key, i) => keySlot(key) !== slots[i])
    expect(wrong).toStrictEqual([])
    expect(keySlot('foo{}{bar}')).toBe(8363)
  })
})
