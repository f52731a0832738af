// Decode work, counted in units of roughly one small allocation's time (~20 ns on the machine of
// apps/bench/RESULTS.md) against a budget that grows with the bytes of the input: a small envelope
// cannot ask for seconds of work or gigabytes of objects, however well its payload deflates
// (FORMAT.md §3). The encoder counts the same units, never fewer, so that it stores a value whose
// deflated form would ask too much per byte uncompressed instead (see codec.ts), and a value whose
// RECORDS would ask too much even then without them (see encoder.ts): what Stowage writes, a
// reader with the same limit reads.

/** Work per array element, object property, RECORDS column entry and key of a key list (what maxItems counts). */
export const ITEM_WORK = 1
/** Work per array, object, RECORDS row and non-empty string: an object to allocate. */
export const OBJECT_WORK = 8
/**
 * Work per bin and per extension value but `undefined` (Date, bigint, typed array, ArrayBuffer,
 * DataView, Map, Set, RegExp, UTF-16 string, RECORDS, DELTA, DICT, your extensions): each costs
 * an ArrayBuffer, a collection or a call, 10–40× a small number (measured with the hostile inputs
 * of apps/bench/src/hostile-bench.ts).
 */
export const EXTENSION_WORK = 32
/**
 * Work per key of a SHAPE's or a RECORDS' key list: a shape is a new hidden class for the engine
 * to build, 2–5 µs a key on a shared machine (2,000 shapes of 8 keys, 43 kB deflated, took
 * 135 ms), while the list may take less than a byte a key once deflated.
 */
export const KEY_LIST_WORK = 128
/** Work per byte of BIGINT magnitude: parsing costs ~18 ns a byte. */
export const BIGINT_BYTE_WORK = 1
/**
 * Payload bytes per unit of work: inflating and holding the payload costs ~1 ns a byte and its
 * memory, so a 64 KiB envelope cannot make a reader inflate more than 16 MiB (a string made of it
 * then holds 32 MB at the peak), and a payload past 16 MiB that deflates more than 256:1 asks more
 * than its stored size allows.
 */
export const PAYLOAD_BYTES_PER_WORK = 8
/**
 * Every payload counts as stored in at least this many bytes: a small envelope may ask for as much
 * work as a 64 KiB one (2 Mi units by default, some tens of milliseconds at worst), so values that
 * deflate extremely well but are not large (a 100,000-row table of sorted ids in 483 bytes) stay
 * deflated.
 */
export const MIN_STORED_BYTES = 64 * 1024

/**
 * The work a payload stored in `storedBytes` (deflated or not) may ask for.
 * @param storedBytes - the payload as stored: the bytes after the envelope's header and CRC.
 * @param perByte - the codec's maxWorkPerByte.
 */
export function workBudget(storedBytes: number, perByte: number): number {
  return Math.max(MIN_STORED_BYTES, storedBytes) * perByte
}

/** The work of inflating and holding a payload of `length` bytes, counted before anything else. */
export function payloadWork(length: number): number {
  return Math.ceil(length / PAYLOAD_BYTES_PER_WORK)
}
