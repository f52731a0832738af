// Where a raw deflate stream (RFC 1951) ends. The portable platform's inflater (fflate) stops at
// the end of the final block and says nothing of the bytes after it, where zlib reports the input
// it consumed; so the portable platform finds the end here and refuses bytes after it, as Node does.
//
// Why this and not fflate: fflate 0.8 has no public way to tell. Its one-shot inflateSync keeps its
// state private, and its streaming Inflate's `ondata` final flag only echoes the caller's; reading
// that class's private state would tie us to its internals and costs ~20 µs more per call on small
// payloads (a 128 KiB working buffer per push); inflating again without the last byte (which must
// then fail) doubles the inflate and throws. Finding the end means reading every block's Huffman
// codes as an inflater does, but nothing is written and no match is copied: in Chromium 156 it
// adds 0.4-0.65× fflate's inflate time under 16 KiB of payload, 0.1-0.2× from 55 KiB up
// (apps/bench/src/inflate-bench.ts), for ~0.7 KiB of the gzipped codec.

// The order in which a dynamic block lists its code-length code lengths (RFC 1951 §3.2.7).
const ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

// A canonical Huffman code (RFC 1951 §3.2.2) as a table indexed by the next `bits` input bits
// (first bit lowest): each entry the symbol << 4 | its code length, 0 where no code starts.
interface Code {
  readonly table: Uint16Array
  bits: number
}

const newCode = (): Code => ({ table: new Uint16Array(1 << 15), bits: 0 })
// Reused (deflateEnd runs to the end without yielding): a dynamic block's literal/length,
// distance and code-length codes; the fixed block's two codes, built once.
let dynamic: Code[] | undefined
let fixed: Code[] | undefined
const count = new Uint16Array(16)
const next = new Uint16Array(16)

// Fills `c` with the code of `lengths`: codes of one length are consecutive numbers.
function build(c: Code, lengths: Uint8Array): Code {
  let bits = 0
  count.fill(0)
  for (let i = 0; i < lengths.length; i++) count[lengths[i]!]!++, (bits = Math.max(bits, lengths[i]!))
  count[0] = 0
  for (let len = 1; len < 16; len++) next[len] = (next[len - 1]! + count[len - 1]!) << 1
  const table = c.table.fill(0, 0, 1 << bits)
  c.bits = bits
  for (let symbol = 0; symbol < lengths.length; symbol++) {
    const len = lengths[symbol]!
    // The stream sends a code first bit highest: reversed, it indexes the table.
    let reversed = 0
    for (let i = 0, code = next[len]!++; i < len; i++) reversed = (reversed << 1) | ((code >> i) & 1)
    for (let i = reversed; len > 0 && i < 1 << bits; i += 1 << len) table[i] = (symbol << 4) | len
  }
  return c
}

// The `n` (≤ 16) bits of `data` from bit `pos`, first bit lowest; past its end they read as zeros.
function bits(data: Uint8Array, pos: number, n: number): number {
  const at = pos >> 3
  return ((data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16)) >> (pos & 7)) & ((1 << n) - 1)
}

/** What {@link deflateEnd} returns for a stored block whose NLEN is not the complement of its LEN. */
export const BAD_STORED_LENGTH = -2

/**
 * The length in bytes of the raw deflate stream at the start of `data` (up to the byte holding the
 * last bit of its final block), -1 when the stream is malformed or runs past the end of `data`, or
 * {@link BAD_STORED_LENGTH}. Meant for a stream that inflated: it checks only what finding the end
 * needs, and each stored block's NLEN.
 * @throws nothing.
 */
export function deflateEnd(data: Uint8Array): number {
  const [literalCode, distanceCode, lengthCode] = (dynamic ??= [newCode(), newCode(), newCode()]) as [Code, Code, Code]
  const total = data.length * 8
  let pos = 0
  // The next symbol of `c`, or -1 for bits no code starts with.
  const symbol = (c: Code) => {
    const entry = c.table[bits(data, pos, c.bits)]!
    pos += entry & 15
    return entry ? entry >> 4 : -1
  }
  for (let final = 0; !final; ) {
    if (pos + 3 > total) return -1
    final = bits(data, pos, 1)
    const type = bits(data, pos + 1, 2)
    pos += 3
    let [literals, distances] = [literalCode, distanceCode]
    if (type === 0) {
      // Stored: LEN, NLEN, then LEN bytes, from the next byte boundary. zlib refuses a NLEN that is
      // not LEN's complement and fflate does not look: checked here, so both builds refuse it.
      const at = (pos + 7) >> 3
      const length = bits(data, at * 8, 16)
      if ((length ^ bits(data, at * 8 + 16, 16)) !== 0xffff && at + 4 <= data.length) return BAD_STORED_LENGTH
      pos = (at + 4 + length) * 8
      continue
    } else if (type === 1) {
      ;[literals, distances] = (fixed ??= [build(newCode(), new Uint8Array(288).fill(8).fill(9, 144, 256).fill(7, 256, 280)), build(newCode(), new Uint8Array(30).fill(5))]) as [Code, Code]
    } else if (type === 2) {
      const literalCount = bits(data, pos, 5) + 257
      const lengths = new Uint8Array(literalCount + bits(data, pos + 5, 5) + 1)
      const codeLengths = new Uint8Array(19)
      const n = bits(data, pos + 10, 4) + 4
      pos += 14
      for (let i = 0; i < n; i++, pos += 3) codeLengths[ORDER[i]!] = bits(data, pos, 3)
      build(lengthCode, codeLengths)
      for (let i = 0; i < lengths.length; ) {
        const length = symbol(lengthCode)
        if (length < 0 || pos > total) return -1
        if (length < 16) lengths[i++] = length
        else {
          // 16: the previous length 3-6 times; 17: zeros 3-10 times; 18: zeros 11-138 times.
          const extra = length === 16 ? 2 : length === 17 ? 3 : 7
          const repeat = (length === 18 ? 11 : 3) + bits(data, pos, extra)
          pos += extra
          if (i + repeat > lengths.length) return -1
          lengths.fill(length === 16 ? lengths[i - 1]! : 0, i, (i += repeat))
        }
      }
      build(literals, lengths.subarray(0, literalCount))
      build(distances, lengths.subarray(literalCount))
    } else return -1
    for (;;) {
      const literal = symbol(literals)
      if (literal < 0 || literal > 285 || pos > total) return -1
      if (literal === 256) break
      if (literal > 256) {
        // A length's extra bits (RFC 1951 §3.2.5), then its distance and the distance's extra bits.
        if (literal >= 265 && literal < 285) pos += (literal - 261) >> 2
        const distance = symbol(distances)
        if (distance < 0 || distance > 29) return -1
        if (distance >= 4) pos += (distance >> 1) - 1
      }
    }
  }
  return pos > total ? -1 : (pos + 7) >> 3
}
