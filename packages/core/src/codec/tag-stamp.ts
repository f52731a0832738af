// The tag stamp an envelope may carry (flag bit 2, FORMAT.md §1): the tags of a cache entry, each
// with the generation the tag had when the entry was written. A reader compares them with the
// tags' current generations; the payload never depends on them.
//
//   count    uint8, 1 to 255
//   then, count times:
//     length      uint8, 1 to 255: the tag's UTF-8 byte length
//     tag         UTF-8
//     generation  uint32
import { StowageErrorCode } from '../errors/error-codes.js'
import { corrupt, truncated } from '../errors/make.js'
import { StowageError } from '../errors/stowage-error.js'
import { strictUtf8 } from './strict-utf8.js'

/** Most tags one envelope carries, and most UTF-8 bytes of one tag. */
export const MAX_TAGS = 255
/** Most UTF-8 bytes of one tag. */
export const MAX_TAG_BYTES = 255

const utf8 = new TextEncoder()
// In a `u` pattern a surrogate pair is one code point: only lone surrogates match.
const LONE_SURROGATE = /\p{Cs}/u

function isTagMap(tags: unknown): tags is ReadonlyMap<string, number> {
  return tags instanceof Map
}

/**
 * Checks one tag: a string of 1 to 255 UTF-8 bytes without lone surrogates.
 * @returns its UTF-8 bytes.
 * @throws {StowageError} INVALID_ARGUMENT otherwise.
 */
export function checkTag(tag: unknown): Uint8Array {
  if (typeof tag !== 'string' || LONE_SURROGATE.test(tag)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'tags are strings without lone surrogates')
  const bytes = utf8.encode(tag)
  if (bytes.length < 1 || bytes.length > MAX_TAG_BYTES) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `tags are 1 to ${MAX_TAG_BYTES} UTF-8 bytes long`)
  return bytes
}

/**
 * Encodes tags and their generations as a stamp field.
 * @throws {StowageError} INVALID_ARGUMENT for anything but a Map of 1 to 255 tags of 1 to 255
 * UTF-8 bytes (no lone surrogates) to uint32 generations.
 */
export function encodeTagStamp(tags: unknown): Uint8Array {
  const bad = (why: string) => new StowageError(StowageErrorCode.INVALID_ARGUMENT, `tags ${why}`)
  if (!isTagMap(tags)) throw bad('must be a Map of tag to generation')
  if (tags.size < 1 || tags.size > MAX_TAGS) throw bad(`must hold 1 to ${MAX_TAGS} tags`)
  const parts: Array<[Uint8Array, number]> = []
  let size = 1
  for (const [tag, generation] of tags) {
    const bytes = checkTag(tag)
    if (!(Number.isInteger(generation) && generation >= 0 && generation <= 0xffffffff)) throw bad('have uint32 generations')
    parts.push([bytes, generation])
    size += 1 + bytes.length + 4
  }
  const out = new Uint8Array(size)
  out[0] = parts.length
  let p = 1
  for (const [bytes, generation] of parts) {
    out[p] = bytes.length
    out.set(bytes, p + 1)
    p += 1 + bytes.length
    out[p] = generation >>> 24
    out[p + 1] = generation >>> 16
    out[p + 2] = generation >>> 8
    out[p + 3] = generation
    p += 4
  }
  return out
}

/**
 * Reads a stamp field that starts at `bytes[at]`, stopping before `limit`.
 * @returns the tags in their stored order, and where the field ends.
 * @throws {StowageError} TRUNCATED when it runs past `limit`; CORRUPT for a zero count or length,
 * bytes that are not UTF-8, or a tag given twice.
 */
export function readTagStamp(bytes: Uint8Array, at: number, limit: number): { tags: ReadonlyMap<string, number>; end: number } {
  const short = () => truncated('the envelope ends inside its tag stamp')
  if (at >= limit) throw short()
  const count = bytes[at] as number
  if (count === 0) throw corrupt('the tag stamp holds no tags')
  const tags = new Map<string, number>()
  let p = at + 1
  for (let i = 0; i < count; i++) {
    if (p >= limit) throw short()
    const length = bytes[p] as number
    if (length === 0) throw corrupt('the tag stamp holds an empty tag')
    if (p + 1 + length + 4 > limit) throw short()
    let tag: string
    try {
      tag = strictUtf8.decode(bytes.subarray(p + 1, p + 1 + length))
    } catch (e) {
      throw corrupt('a tag of the tag stamp is not UTF-8', e)
    }
    if (tags.has(tag)) throw corrupt('the tag stamp names a tag twice')
    p += 1 + length
    tags.set(tag, (((bytes[p] as number) << 24) | ((bytes[p + 1] as number) << 16) | ((bytes[p + 2] as number) << 8) | (bytes[p + 3] as number)) >>> 0)
    p += 4
  }
  return { tags, end: p }
}
