// Dates. A valid Date is MessagePack's standard timestamp extension (type -1), so any MessagePack
// library reads it; an invalid Date (time NaN) is ExtType.INVALID_DATE with no data.
import { corrupt } from '../../errors/make.js'
import { ExtType } from '../format.js'

const TWO_32 = 4294967296
const MAX_DATE_MS = 8.64e15
/** The most bytes {@link writeDate} writes. */
export const MAX_DATE_SIZE = 15

/**
 * Writes `date` at `at` (room for {@link MAX_DATE_SIZE} bytes is ensured): timestamp 32 for whole
 * seconds from 1970 to 2106, timestamp 64 up to year 2514, timestamp 96 otherwise.
 * @returns the position after it.
 */
export function writeDate(out: Uint8Array, view: DataView, at: number, date: Date): number {
  const ms = date.getTime()
  if (Number.isNaN(ms)) {
    out[at] = 0xc7
    out[at + 1] = 0
    out[at + 2] = ExtType.INVALID_DATE
    return at + 3
  }
  const sec = Math.floor(ms / 1000)
  const nsec = (ms - sec * 1000) * 1e6
  if (sec >= 0 && sec < 0x400000000) {
    if (nsec === 0 && sec < TWO_32) {
      out[at] = 0xd6
      out[at + 1] = 0xff
      view.setUint32(at + 2, sec)
      return at + 6
    }
    out[at] = 0xd7
    out[at + 1] = 0xff
    // 30 bits of nanoseconds, then 34 bits of seconds
    view.setUint32(at + 2, nsec * 4 + Math.floor(sec / TWO_32))
    view.setUint32(at + 6, sec >>> 0)
    return at + 10
  }
  out[at] = 0xc7
  out[at + 1] = 12
  out[at + 2] = 0xff
  view.setUint32(at + 3, nsec)
  view.setInt32(at + 7, Math.floor(sec / TWO_32))
  view.setUint32(at + 11, sec >>> 0)
  return at + 15
}

/**
 * Reads a timestamp extension's data (4, 8 or 12 bytes at `at`). Sub-millisecond nanoseconds,
 * which other writers may store, are rounded down to the millisecond a Date holds.
 * @throws {StowageError} CORRUPT for another length, nanoseconds ≥ 10^9 or a time beyond Date's range.
 */
export function readTimestamp(view: DataView, at: number, length: number): Date {
  let sec: number
  let nsec: number
  if (length === 4) {
    sec = view.getUint32(at)
    nsec = 0
  } else if (length === 8) {
    const hi = view.getUint32(at)
    nsec = hi >>> 2
    sec = (hi & 0x3) * TWO_32 + view.getUint32(at + 4)
  } else if (length === 12) {
    nsec = view.getUint32(at)
    sec = view.getInt32(at + 4) * TWO_32 + view.getUint32(at + 8)
  } else {
    throw corrupt('bad timestamp extension')
  }
  const ms = sec * 1000 + Math.floor(nsec / 1e6)
  if (nsec >= 1e9 || !(Math.abs(ms) <= MAX_DATE_MS)) throw corrupt('timestamp out of range')
  return new Date(ms)
}
