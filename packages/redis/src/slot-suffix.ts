// Four characters that bring a string to a chosen hash slot, so that a name the store makes for
// its own use (a chunk, a lease) lands in the slot of the key it belongs to whatever braces that
// key holds. The characters are '@' (0x40) to 'O' (0x4F): no braces, no glob characters.
//
// Why four such characters always suffice: CRC-16/XMODEM starts from 0 and is linear over GF(2),
// so for any bytes P, crc(P + ('@@@@' XOR N)) = crc(P + '@@@@') XOR crc(N), N being four bytes of
// 0 to 15. Over the 65,536 such N, crc(N) takes every value of its low 14 bits (test/key-slot.test.ts
// checks every slot), so an N exists for every slot, whatever P. The table keeps the smallest N.
import { crc16, SLOT_COUNT } from './key-slot.js'

/** How many characters {@link slotSuffix} returns. */
export const SLOT_SUFFIX_LENGTH = 4

const BASE = 0x40
const ZERO = new Uint8Array(SLOT_SUFFIX_LENGTH).fill(BASE)

// The low 14 bits of crc(N) → N (as 16 bits, one nibble per byte); built on first use (~65k CRCs).
let inverse: Uint16Array | undefined

function table(): Uint16Array {
  if (inverse !== undefined) return inverse
  const out = new Uint16Array(SLOT_COUNT)
  const filled = new Uint8Array(SLOT_COUNT)
  const bytes = new Uint8Array(SLOT_SUFFIX_LENGTH)
  for (let n = 0; n < 0x10000; n++) {
    for (let j = 0; j < SLOT_SUFFIX_LENGTH; j++) bytes[j] = (n >> (12 - 4 * j)) & 0xf
    const low = crc16(bytes) % SLOT_COUNT
    if (filled[low] === 0) {
      filled[low] = 1
      out[low] = n
    }
  }
  inverse = out
  return out
}

/**
 * The four characters that, appended to bytes whose running CRC-16 is `crcBefore`, make the
 * CRC-16 of the whole fall in `slot`. Only valid when those bytes are what Redis hashes: a name
 * with no hash tag, the suffix at its very end.
 * @param crcBefore - the running {@link crc16} of the bytes before the suffix.
 * @param slot - 0 to 16383.
 */
export function slotSuffix(crcBefore: number, slot: number): string {
  const n = table()[(crc16(ZERO, crcBefore) ^ slot) % SLOT_COUNT] as number
  let out = ''
  for (let j = 0; j < SLOT_SUFFIX_LENGTH; j++) out += String.fromCharCode(BASE | ((n >> (12 - 4 * j)) & 0xf))
  return out
}

/**
 * A short name without braces in `slot`, which every client routes alike (the npm package
 * cluster-key-slot, behind ioredis and node-redis, agrees with Redis on keys without braces).
 */
export function slotName(slot: number): string {
  return slotSuffix(0, slot)
}
