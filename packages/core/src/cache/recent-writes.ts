// The writes this process sent to the store lately, for a clear made by another process (another
// tab's sign-out). Claims keep a clear from being overtaken by what was on its way here, but only
// from when this process hears of it: a write sent between the start of the other process's clear
// and its message can land in the store after the clear. When the message comes (it carries when
// the clear began), every write sent here since then under a cleared prefix is deleted again, once
// it has landed.

/** How long a write is remembered, in ms: a clear's message comes within this of its start. */
export const RECENT_WRITE_WINDOW = 60_000
/**
 * Writes sent this long before a clear began count as after it, in ms: the two processes read
 * their own clocks (the same clock for tabs of one browser; servers' may differ a little).
 */
export const CLOCK_MARGIN = 1_000
/** At most this many writes are remembered (the oldest go first). */
const MAX_REMEMBERED = 4096

interface Sent {
  readonly full: string
  // -Infinity once named by since(): a later clear message (or a repeated one) names it no more.
  at: number
  readonly landed: Promise<unknown>
}

/** The writes this process sent lately; see the file's comment. */
export class RecentWrites {
  // In the order sent; those before `head` are forgotten (dropped in one go now and then).
  private sent: Sent[] = []
  private head = 0

  /** Remembers a write of `full` sent now, which settles with `landed`. */
  record(full: string, landed: Promise<unknown>): void {
    const now = Date.now()
    this.sent.push({ full, at: now, landed: landed.catch(() => {}) })
    const sent = this.sent
    while (this.head < sent.length && ((sent[this.head] as Sent).at < now - RECENT_WRITE_WINDOW || sent.length - this.head > MAX_REMEMBERED)) this.head++
    if (this.head > 1024 && this.head * 2 > sent.length) {
      this.sent = sent.slice(this.head)
      this.head = 0
    }
  }

  /**
   * The keys under `prefix` written since `since` (less {@link CLOCK_MARGIN}, and within the last
   * {@link RECENT_WRITE_WINDOW}), each once, with a promise that settles once every such write has
   * landed or failed. The writes named are forgotten: a message cannot make them deleted twice.
   */
  since(prefix: string, since: number): { keys: string[]; landed: Promise<unknown> } {
    const from = Math.max(since - CLOCK_MARGIN, Date.now() - RECENT_WRITE_WINDOW)
    const keys = new Set<string>()
    const landed: Promise<unknown>[] = []
    for (let i = this.head; i < this.sent.length; i++) {
      const s = this.sent[i] as Sent
      if (s.at < from || !s.full.startsWith(prefix)) continue
      s.at = -Infinity
      keys.add(s.full)
      landed.push(s.landed)
    }
    return { keys: [...keys], landed: Promise.all(landed) }
  }
}
