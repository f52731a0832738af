// Tags for Next.js on Stowage. An entry is stamped with the generations of its own tags (the
// Cache's tags: revalidating a tag gives it a new generation, so every entry stamped with the old
// one reads as gone; nothing is listed or scanned, and no clock is compared). Next also asks for
// times: `getExpiration(tags)` must answer when tags were last revalidated, and a fetch-cache read
// brings soft tags (the page's implicit tags) that its entry was never stamped with. For those,
// each revalidation also writes its time under the tag's own key. Both cost O(tags), never O(keys).
import { createHash } from 'node:crypto'
import { MAX_TAG_BYTES, MAX_TAGS, type Cache } from '@stowage/core'

// How long a revalidation time is kept: longer than any entry written before it can live (Next's
// default expireTime is a year).
const REVALIDATED_TTL = 400 * 24 * 3600 * 1000

const encoder = new TextEncoder()

/**
 * A Next tag as a Stowage tag: itself when it fits (1 to 255 UTF-8 bytes), else a hash of it
 * (Next allows 256 characters, which can be more bytes).
 */
export function stowageTag(tag: string): string {
  if (tag.length > 0 && encoder.encode(tag).byteLength <= MAX_TAG_BYTES) return tag
  return `#sha256:${createHash('sha256').update(tag).digest('hex')}`
}

/** Up to MAX_TAGS distinct Stowage tags for an entry; the rest are checked by time instead. */
export function stampTags(tags: Iterable<string>): { stamped: string[]; rest: string[] } {
  const all = [...new Set([...tags].filter((tag) => typeof tag === 'string' && tag.length > 0).map(stowageTag))]
  return { stamped: all.slice(0, MAX_TAGS), rest: all.slice(MAX_TAGS) }
}

/** Revalidation times and generations of tags, in one namespace's cache. */
export class TagBook {
  constructor(private readonly cache: Cache) {}

  private timeKey(tag: string): string {
    // `#` cannot start a key segment a Next cache key yields here (those start with `isr:` or `uc:`).
    return `#revalidated:${tag}`
  }

  /** Revalidates tags now: new generations, and the time under each tag. */
  async revalidate(tags: Iterable<string>): Promise<void> {
    const names = [...new Set([...tags].filter((tag) => typeof tag === 'string' && tag.length > 0).map(stowageTag))]
    if (names.length === 0) return
    const now = Date.now()
    for (let i = 0; i < names.length; i += MAX_TAGS) await this.cache.deleteByTag(names.slice(i, i + MAX_TAGS))
    await this.cache.setMany(names.map((tag) => ({ key: this.timeKey(tag), value: now, ttl: REVALIDATED_TTL })))
  }

  /** The latest revalidation time of any of `tags`, in ms since the epoch; 0 if none ever was. */
  async latest(tags: Iterable<string>): Promise<number> {
    const names = [...new Set([...tags].filter((tag) => typeof tag === 'string' && tag.length > 0).map(stowageTag))]
    if (names.length === 0) return 0
    const times = await this.cache.getMany<number>(names.map((tag) => this.timeKey(tag)))
    return times.reduce<number>((max, time) => (typeof time === 'number' && time > max ? time : max), 0)
  }
}
