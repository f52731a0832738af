// CRC-32 as zlib computes it (reflected, polynomial 0xEDB88320), slice-by-16 over 32-bit words:
// sixteen table lookups per 16 input bytes, read four at a time through an Int32Array (on
// little-endian machines; slice-by-8 over bytes elsewhere and for short ranges). Used where native
// zlib is not available (browsers): 1.7× slice-by-8 over bytes (~1,000 vs ~600 MB/s in V8).
const TABLES = new Int32Array(256 * 16)
for (let n = 0; n < 256; n++) {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  TABLES[n] = c
}
for (let n = 0; n < 256; n++) {
  let c = TABLES[n] as number
  for (let t = 1; t < 16; t++) {
    c = (TABLES[c & 0xff] as number) ^ (c >>> 8)
    TABLES[t * 256 + n] = c
  }
}

/**
 * CRC-32 of `data`, continuing from `crc` (the result of a previous call), as zlib's `crc32(crc, data)`.
 * @param data - bytes to add.
 * @param crc - the CRC so far. Defaults to 0 (a new CRC).
 * @returns the CRC as an unsigned 32-bit number.
 */
export function crc32(data: Uint8Array, crc = 0): number {
  return crc32Range(data, 0, data.length, crc)
}

/**
 * CRC-32 of `data[start..end)`, continuing from `crc`; no subarray needed (the envelope header).
 * @returns the CRC as an unsigned 32-bit number.
 */
export function crc32Range(data: Uint8Array, start: number, end: number, crc = 0): number {
  if (end - start >= WORDWISE && LITTLE_ENDIAN) return crc32Words(data, start, end, crc)
  const t = TABLES
  let c = ~crc
  let i = start
  const end8 = end - ((end - start) % 8)
  while (i < end8) {
    const a = c ^ ((data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24))
    const b = (data[i + 4] as number) | ((data[i + 5] as number) << 8) | ((data[i + 6] as number) << 16) | ((data[i + 7] as number) << 24)
    c =
      (t[1792 + (a & 0xff)] as number) ^
      (t[1536 + ((a >>> 8) & 0xff)] as number) ^
      (t[1280 + ((a >>> 16) & 0xff)] as number) ^
      (t[1024 + (a >>> 24)] as number) ^
      (t[768 + (b & 0xff)] as number) ^
      (t[512 + ((b >>> 8) & 0xff)] as number) ^
      (t[256 + ((b >>> 16) & 0xff)] as number) ^
      (t[b >>> 24] as number)
    i += 8
  }
  while (i < end) c = (t[(c ^ (data[i++] as number)) & 0xff] as number) ^ (c >>> 8)
  return ~c >>> 0
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
// Below this many bytes the Int32Array view costs more than it saves.
const WORDWISE = 256

function crc32Words(data: Uint8Array, start: number, end: number, crc: number): number {
  const t = TABLES
  let c = ~crc
  let i = start
  while (((data.byteOffset + i) & 3) !== 0) c = (t[(c ^ (data[i++] as number)) & 0xff] as number) ^ (c >>> 8)
  const words = new Int32Array(data.buffer, data.byteOffset + i, (end - i) >> 2)
  const last = words.length & ~3
  for (let w = 0; w < last; w += 4) {
    const a = c ^ (words[w] as number)
    const b = words[w + 1] as number
    const d = words[w + 2] as number
    const e = words[w + 3] as number
    c =
      (t[3840 + (a & 0xff)] as number) ^
      (t[3584 + ((a >>> 8) & 0xff)] as number) ^
      (t[3328 + ((a >>> 16) & 0xff)] as number) ^
      (t[3072 + (a >>> 24)] as number) ^
      (t[2816 + (b & 0xff)] as number) ^
      (t[2560 + ((b >>> 8) & 0xff)] as number) ^
      (t[2304 + ((b >>> 16) & 0xff)] as number) ^
      (t[2048 + (b >>> 24)] as number) ^
      (t[1792 + (d & 0xff)] as number) ^
      (t[1536 + ((d >>> 8) & 0xff)] as number) ^
      (t[1280 + ((d >>> 16) & 0xff)] as number) ^
      (t[1024 + (d >>> 24)] as number) ^
      (t[768 + (e & 0xff)] as number) ^
      (t[512 + ((e >>> 8) & 0xff)] as number) ^
      (t[256 + ((e >>> 16) & 0xff)] as number) ^
      (t[e >>> 24] as number)
  }
  i += last * 4
  while (i < end) c = (t[(c ^ (data[i++] as number)) & 0xff] as number) ^ (c >>> 8)
  return ~c >>> 0
}

// A CRC-32 is linear over GF(2): the CRC of `a` followed by `b` is crc(b) XOR crc(a) multiplied by
// x^(8·|b|) modulo the CRC's polynomial. That lets a header be replaced in front of a payload
// without reading the payload again (moveCrc). Polynomials are bit-reflected here, as in the
// tables: bit 31 is the coefficient of x^0.

// a·b modulo the polynomial: b times each power of x that a has, b stepping up one power per bit.
function multiplyModP(a: number, b: number): number {
  let product = 0
  for (let bit = 31; bit >= 0; bit--) {
    if ((a >>> bit) & 1) product ^= b
    b = b & 1 ? (b >>> 1) ^ 0xedb88320 : b >>> 1
  }
  return product
}

// x^(8·n) modulo the polynomial, by squaring: what a CRC is multiplied by to pass n bytes.
function xPower8n(n: number): number {
  let result = 0x80000000 // x^0
  let square = 0x00800000 // x^8
  for (let rest = n; rest > 0; rest = Math.floor(rest / 2)) {
    if (rest % 2 === 1) result = multiplyModP(result, square)
    square = multiplyModP(square, square)
  }
  return result
}

/**
 * The CRC-32 of `newHead` followed by some bytes, from the CRC-32 of `oldHead` followed by the same
 * bytes (`crc`) and their length, without reading them: crc XOR ((crc(oldHead) XOR crc(newHead)) ·
 * x^(8·tailLength)). A `crc` that was wrong for the old bytes is wrong for the new ones by exactly
 * as much: a damaged envelope resealed this way still fails its check.
 * @param crc - the CRC-32 of `oldHead` and the tail.
 * @param oldHeadCrc - crc32 of the old head alone.
 * @param newHeadCrc - crc32 of the new head alone.
 * @param tailLength - the tail's length in bytes.
 * @returns the CRC-32 of the new head and the tail, unsigned.
 */
export function moveCrc(crc: number, oldHeadCrc: number, newHeadCrc: number, tailLength: number): number {
  return (crc ^ multiplyModP(xPower8n(tailLength), oldHeadCrc ^ newHeadCrc)) >>> 0
}
