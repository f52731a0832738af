// Arrays the decoder reads RECORDS columns into, kept from one decode to the next. A column is
// only needed until its rows are built; a new array per column per decode doubled what decoding
// a table allocated beside its rows (issue 25: 20–22% of a server's time in garbage collection
// against msgpackr's 5%). One array per column of each RECORDS nesting level, since a column of
// an outer level is still being filled while the columns of RECORDS inside it are read.
//
// An array is emptied after use (it must not keep a decoded value alive): filled with 0, which
// drops every reference and keeps an array of numbers one of unboxed doubles. The pool keeps at
// most POOLED_SLOTS slots in all, so a hostile or unusually wide table cannot make it hold on to
// memory: past that, columns get arrays of their own, as they did before.

const POOLED_SLOTS = 1 << 19

/** Column arrays by RECORDS nesting level and column index; not shared between decoders. */
export class ColumnPool {
  private readonly levels: unknown[][][] = []
  private slots = 0

  /** An array with room for `n` values for column `j` of nesting `level`, pooled while the pool has room. */
  take(level: number, j: number, n: number): unknown[] {
    const columns = (this.levels[level] ??= [])
    const pooled = columns[j]
    if (pooled !== undefined && pooled.length >= n) return pooled
    // An array costs its length and one slot more, so that many empty columns count too.
    const more = n + 1 - (pooled === undefined ? 0 : pooled.length + 1)
    if (this.slots + more > POOLED_SLOTS) return new Array<unknown>(n)
    this.slots += more
    return (columns[j] = new Array<unknown>(n))
  }

  /** Forgets the first `n` values of `array` (sets them to 0), when it is one of the pool's; other arrays are left to the collector. */
  release(level: number, j: number, array: unknown[], n: number): void {
    if (this.levels[level]?.[j] === array) array.fill(0, 0, n)
  }

  /** Forgets every value the pool's arrays hold (sets them to 0), after a decode that failed halfway. */
  clear(): void {
    for (const columns of this.levels) for (const array of columns ?? []) array?.fill(0)
  }
}
