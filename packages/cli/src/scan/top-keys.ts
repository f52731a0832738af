/** One of the largest keys. */
export interface LargeKey {
  readonly key: string
  readonly kind: string
  /** Redis type: string, hash, list, … */
  readonly type: string
  /** MEMORY USAGE. */
  readonly memory: number
}

/**
 * The `size` largest keys by memory, kept in a min-heap: memory stays bounded by `size`, whatever
 * the number of keys offered.
 */
export class TopKeys {
  private readonly heap: LargeKey[] = []

  /** @param size - how many keys to keep. */
  constructor(private readonly size: number) {}

  /**
   * Offers a key; kept when it is among the largest so far.
   * @param entry - the key and its memory.
   */
  offer(entry: LargeKey): void {
    if (this.size <= 0) return
    const heap = this.heap
    if (heap.length < this.size) {
      heap.push(entry)
      this.up(heap.length - 1)
    } else if (entry.memory > heap[0]!.memory) {
      heap[0] = entry
      this.down(0)
    }
  }

  /** @returns the keys kept, largest first. */
  sorted(): LargeKey[] {
    return [...this.heap].sort((a, b) => b.memory - a.memory)
  }

  private up(i: number): void {
    const heap = this.heap
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[parent]!.memory <= heap[i]!.memory) return
      ;[heap[parent], heap[i]] = [heap[i]!, heap[parent]!]
      i = parent
    }
  }

  private down(i: number): void {
    const heap = this.heap
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let min = i
      if (l < heap.length && heap[l]!.memory < heap[min]!.memory) min = l
      if (r < heap.length && heap[r]!.memory < heap[min]!.memory) min = r
      if (min === i) return
      ;[heap[min], heap[i]] = [heap[i]!, heap[min]!]
      i = min
    }
  }
}
