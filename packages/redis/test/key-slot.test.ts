import fc from 'fast-check'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { crc16, keySlot } from '../src/key-slot.js'
import { slotName, slotSuffix } from '../src/slot-suffix.js'
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

const utf8 = new TextEncoder()

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

  it('finds a brace-free name for every slot, and a 4-character suffix that moves any text to any slot', async () => {
    const names = Array.from({ length: 16384 }, (_, slot) => slotName(slot))
    expect(names.every((name, slot) => keySlot(name) === slot && /^[@A-O]{4}$/.test(name))).toBe(true)
    const sample = names.filter((_, slot) => slot % 61 === 0)
    expect(await redisSlots(sample)).toStrictEqual(sample.map((_, i) => i * 61))
    const texts = fc.sample(fc.string({ unit: 'grapheme', maxLength: 30 }).filter((t) => !t.includes('{')), { numRuns: 300, seed: 3 })
    const moved = texts.map((text, i) => {
      const slot = (i * 977) % 16384
      return { slot, name: text + slotSuffix(crc16(utf8.encode(text)), slot) }
    })
    expect(await redisSlots(moved.map((m) => m.name))).toStrictEqual(moved.map((m) => m.slot))
  })
})
