// Ids no earlier one of this page used: for segments, saves and removals.

let counter = 0

/** An id no earlier call made: the time, a counter and a random part. */
export function newId(): string {
  counter = (counter + 1) % 0x100000
  return `${Date.now().toString(36)}.${counter.toString(36)}.${Math.random().toString(36).slice(2, 8)}`
}
