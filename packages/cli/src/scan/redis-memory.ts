// What a string key would take in Redis with another value, from what it takes now. Redis keeps a
// long string (over 44 bytes) as an object plus one allocation of an sds header, the bytes and a
// NUL; jemalloc rounds each allocation up to its size class. Rounding matters: a 6.4 kB JSON
// value takes 7 KiB, and a key's overhead, measured as MEMORY USAGE minus the value's length,
// would otherwise carry that waste over to the smaller value.

/**
 * jemalloc's size class for an allocation of `n` bytes (8, then steps of 16 up to 128, then four
 * classes per doubling).
 * @param n - bytes asked for.
 * @returns bytes given.
 */
export function jemallocSize(n: number): number {
  if (n <= 8) return 8
  if (n <= 128) return Math.ceil(n / 16) * 16
  const step = 2 ** (Math.floor(Math.log2(n - 1)) - 2)
  return Math.ceil(n / step) * step
}

function sdsAllocation(length: number): number {
  const header = length < 256 ? 3 : length < 65_536 ? 5 : length < 2 ** 32 ? 9 : 17
  return jemallocSize(header + length + 1)
}

/**
 * MEMORY USAGE of a string key once its value of `fromLength` bytes is replaced by `toLength`.
 * @param memory - MEMORY USAGE now.
 * @param fromLength - the value's length now.
 * @param toLength - the new value's length.
 * @returns the estimate.
 */
export function memoryWithLength(memory: number, fromLength: number, toLength: number): number {
  return Math.max(0, memory - sdsAllocation(fromLength) + sdsAllocation(toLength))
}
