// The names of a chunked value's chunks (FORMAT.md §6). Chunk i of key K, written under
// generation G (16 lowercase hex digits), is named
//
//   K ':#chunk:' G ':' i           when K has a hash tag: Redis hashes K's tag, which the name keeps
//   K ':#chunk:' G ':' i ':' S     otherwise: S is four characters '@'..'O' chosen so that the whole
//                                  name, which then has no tag either, hashes to K's slot
//
// (i in decimal, no leading zeros). So every chunk lies in its key's hash slot whatever braces the
// key holds, and a chunk's name begins with its key: a prefix that selects a key's chunks selects
// the key too, unless it reaches into the ':#chunk:' part. The store's keys() and clear() never list
// or delete chunk names (they go with their manifest), so even such a prefix cannot orphan a value.
//
// Stores before this rule (@stowage/redis 0.3 and older) named chunk i `{T}:chunk:G:i`, T being
// the first non-empty `{…}` section of K, or K. Redis does not take T as K's tag when K has an
// empty first tag ('x{}{y}') or a '}' outside a tag ('a}b'), and prefixes of other keys ('{a}')
// select those names. They are still read, and expired with their manifest (legacyChunkNamer).
import { crc16, hasHashTag, keySlot } from './key-slot.js'
import { slotSuffix } from './slot-suffix.js'

/** Names the chunks of one write: chunk index → key. */
export type ChunkNamer = (index: number) => string

const utf8 = new TextEncoder()
const MARK = ':#chunk:'
const NAME = /^([^]+):#chunk:([0-9a-f]{16}):(0|[1-9][0-9]{0,9})(?::[@A-O]{4})?$/
const LEGACY_NAME = /^\{[^]*\}:chunk:[0-9a-f]{16}:\d+$/

/**
 * The namer of the chunks `key` holds under `generation` (see the rule above).
 * @param generation - 16 lowercase hex digits, as the manifest's generation is written.
 */
export function chunkNamer(key: string, generation: string): ChunkNamer {
  const stem = `${key}${MARK}${generation}:`
  if (hasHashTag(key)) return (index) => stem + index
  const slot = keySlot(key)
  const stemCrc = crc16(utf8.encode(stem))
  return (index) => {
    const name = `${stem}${index}:`
    return name + slotSuffix(crc16(utf8.encode(`${index}:`), stemCrc), slot)
  }
}

/** The namer of chunks written before this rule: `{T}:chunk:G:i` (see above). */
export function legacyChunkNamer(key: string, generation: string): ChunkNamer {
  const open = key.indexOf('{')
  const close = open < 0 ? -1 : key.indexOf('}', open + 1)
  const tag = close > open + 1 ? key.slice(open + 1, close) : key
  return (index) => `{${tag}}:chunk:${generation}:${index}`
}

/**
 * Whether `name` is the store's own: a chunk name exactly as {@link chunkNamer} makes it for the
 * key it begins with, or one of the legacy form (which `keys()` always hid).
 */
export function isChunkName(name: string): boolean {
  if (LEGACY_NAME.test(name)) return true
  const parts = NAME.exec(name)
  if (parts === null) return false
  const [, key, generation, index] = parts as unknown as [string, string, string, string]
  return chunkNamer(key, generation)(Number(index)) === name
}
