/**
 * Bytes in binary units with three significant digits: `512 B`, `1.21 KiB`, `38.4 MiB`.
 * @param bytes - a byte count.
 * @returns the text.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '?'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes
  let unit = 0
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${value} B` : `${value.toPrecision(3)} ${units[unit]}`
}

/**
 * An integer with thousands separators: `1,000,000`.
 * @param n - the number.
 * @returns the text.
 */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

/**
 * A ratio with enough digits to compare small ones: `0.412`, `0.00354`.
 * @param r - the ratio.
 * @returns the text, `-` when undefined or not finite.
 */
export function formatRatio(r: number | undefined): string {
  if (r === undefined || !Number.isFinite(r)) return '-'
  return r >= 0.1 ? r.toFixed(3) : r.toPrecision(3)
}

/**
 * A share as a percentage: `42.1%`.
 * @param part - the part.
 * @param whole - the whole.
 * @returns the text, `-` when `whole` is 0.
 */
export function formatPercent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`
}

/**
 * A duration: `850 ms`, `12.3 s`, `4 min 05 s`.
 * @param ms - milliseconds.
 * @returns the text.
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
}

/**
 * Lines of cells padded into aligned columns (numbers right-aligned).
 * @param rows - rows of cells; the first is the heading.
 * @param indent - spaces before each line. Defaults to 2.
 * @returns the lines joined with newlines.
 */
export function formatTable(rows: ReadonlyArray<ReadonlyArray<string>>, indent = 2): string {
  const widths: number[] = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  const numeric = /^[-+]?[\d,.]+( ?[%a-zA-Z]+)?$|^-$/
  return rows
    .map((row) =>
      ' '.repeat(indent) +
      row
        .map((cell, i) => (i > 0 && numeric.test(cell) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
