// Redis Cluster's hash slot of a key, computed the way the server computes it (keyHashSlot in
// cluster.c): CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection, no final XOR) of
// the key's UTF-8 bytes, modulo 16384. When the key has a hash tag, only the tag is hashed. The tag
// is found this way: the first '{', then the first '}' after it. If there is no such '}', or it
// comes right after the '{' (an empty tag, '{}'), the whole key is hashed.
// Examples: 'foo{}{bar}' hashes the whole key (its first tag is empty); 'a}b' the whole key (no
// '{'); 'a{{b}' the tag '{b'; 'a{b}c{d}' the tag 'b'.
// The npm package cluster-key-slot (ioredis's router) differs on a key whose first '{' is followed
// at once by '}' when another '}' comes later: 'foo{}{bar}' is slot 4015 there, 8363 in Redis.

/** How many hash slots a Redis Cluster has. */
export const SLOT_COUNT = 16384

const table = new Uint16Array(256)
for (let byte = 0; byte < 256; byte++) {
  let crc = byte << 8
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  table[byte] = crc
}

const utf8 = new TextEncoder()

/**
 * Feeds `bytes` to a CRC-16/XMODEM whose running value is `crc` (0 to start).
 * @returns the new running value.
 */
export function crc16(bytes: Uint8Array, crc = 0): number {
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ (table[((crc >> 8) ^ (bytes[i] as number)) & 0xff] as number)) & 0xffff
  return crc
}

/**
 * The part of `key` Redis Cluster hashes: its hash tag (see the rule above), else the whole key.
 * `{` and `}` are ASCII, so positions in the string and in its UTF-8 bytes agree.
 */
export function hashedPart(key: string): string {
  const open = key.indexOf('{')
  if (open < 0) return key
  const close = key.indexOf('}', open + 1)
  return close > open + 1 ? key.slice(open + 1, close) : key
}

/** Whether Redis Cluster hashes only a tag of `key` (a tag never spans the whole key: it leaves out its braces). */
export function hasHashTag(key: string): boolean {
  return hashedPart(key) !== key
}

/**
 * The hash slot of `key` in Redis Cluster, 0 to 16383, as `CLUSTER KEYSLOT` answers.
 * @param key - a key without lone surrogates (the store refuses those: they have no UTF-8 form).
 */
export function keySlot(key: string): number {
  return crc16(utf8.encode(hashedPart(key))) % SLOT_COUNT
}
