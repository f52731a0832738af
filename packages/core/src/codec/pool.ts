// Memory for small envelopes. In V8 a typed array over 64 bytes gets a backing store of its own,
// which costs ~0.8 µs on Node 20 whatever its size up to a few KiB: more than encoding a small
// value. Envelopes under POOLED_MAX are therefore exact-length views into a shared 64 KiB slab, as
// Node pools its small Buffers; bigger ones get their own memory. Views never overlap, so writing
// into one result never changes another, but a small result's `.buffer` is shared: copy it
// (`new Uint8Array(bytes)`: on Node the codec hands out Buffers, whose slice() is a view) before
// transferring that buffer to a worker.

/** Envelopes smaller than this many bytes come from the shared slab. */
export const POOLED_MAX = 4096
const SLAB = 64 * 1024

let slab = new Uint8Array(0)
let used = 0

/** A new, zeroed-or-unused, exact-length array of `length` bytes, pooled when small. */
export function take(length: number): Uint8Array {
  if (length >= POOLED_MAX) return new Uint8Array(length)
  if (used + length > slab.length) {
    slab = new Uint8Array(SLAB)
    used = 0
  }
  const out = slab.subarray(used, used + length)
  // Keep the next view 8-byte aligned, so views over it (DataView, Float64Array) stay cheap.
  used = (used + length + 7) & ~7
  return out
}
