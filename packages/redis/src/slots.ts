import { keySlot } from './key-slot.js'

/**
 * Groups item indexes by the hash slot of their key, so that each group is one round trip
 * (MGET and pipelines must stay within one slot on a Cluster). One group when not clustered.
 */
export function bySlot(keys: readonly string[], clustered: boolean): number[][] {
  if (keys.length === 0) return []
  if (!clustered) return [keys.map((_, i) => i)]
  const groups = new Map<number, number[]>()
  keys.forEach((key, i) => {
    const slot = keySlot(key)
    const group = groups.get(slot)
    if (group) group.push(i)
    else groups.set(slot, [i])
  })
  return [...groups.values()]
}
