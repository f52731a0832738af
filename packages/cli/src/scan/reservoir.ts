/**
 * A uniform random sample of at most `size` items from a stream of unknown length (Vitter's
 * algorithm R): memory bounded by `size`. Each slot carries a measurement filled in later.
 */
export class Reservoir<T, M> {
  private readonly items: Array<{ item: T; measured?: M }> = []
  private seen = 0

  /** @param size - the sample size. */
  constructor(private readonly size: number) {}

  /**
   * Offers the next item of the stream.
   * @param item - the item.
   * @returns the slot it took, or -1 when it was not sampled.
   */
  offer(item: T): number {
    this.seen++
    if (this.items.length < this.size) return this.items.push({ item }) - 1
    const j = Math.floor(Math.random() * this.seen)
    if (j >= this.size) return -1
    this.items[j] = { item }
    return j
  }

  /**
   * Records a measurement for a slot, if it still holds `item`.
   * @param slot - from offer.
   * @param item - the item measured.
   * @param measured - the measurement.
   */
  measure(slot: number, item: T, measured: M): void {
    const entry = this.items[this.at(slot, item)]
    if (entry !== undefined) entry.measured = measured
  }

  /**
   * Drops a slot's item (it could not be measured); the slot is refilled by later items.
   * @param slot - from offer.
   * @param item - the item that failed.
   */
  discard(slot: number, item: T): void {
    const at = this.at(slot, item)
    if (at < 0) return
    this.items[at] = this.items[this.items.length - 1]!
    this.items.pop()
  }

  // Where `item` is: at `slot`, or elsewhere when a discard moved it (the last item fills the freed
  // slot); -1 when it was replaced since.
  private at(slot: number, item: T): number {
    return this.items[slot]?.item === item ? slot : this.items.findIndex((e) => e.item === item)
  }

  /** @returns how many items were offered. */
  get offered(): number {
    return this.seen
  }

  /** @returns the measurements of the sample. */
  measurements(): M[] {
    return this.items.flatMap((e) => (e.measured === undefined ? [] : [e.measured]))
  }
}
