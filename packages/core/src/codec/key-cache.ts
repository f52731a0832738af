// Object keys repeat across objects and across calls. Decoding one means building a string and then,
// when it is used as a property name, V8 looking it up in its table of internalized strings. This
// cache maps a key's bytes to the string made the first time, so a repeated key costs a hash and a
// byte comparison, and stores into objects hit V8's fast path for internalized names.

const SLOTS = 4096 // a power of two
/** Keys longer than this many bytes are not cached (they are rare, and comparing them costs more). */
export const MAX_CACHED_KEY = 32

/** A direct-mapped cache from key bytes to the key string. */
export class KeyCache {
  private readonly strings: Array<string | undefined> = new Array(SLOTS).fill(undefined)
  private readonly bytes: Array<Uint8Array | undefined> = new Array(SLOTS).fill(undefined)

  /** The cached string for `source[start..start+length)`, or undefined. `length` is at most {@link MAX_CACHED_KEY}. */
  get(source: Uint8Array, start: number, length: number): string | undefined {
    const slot = hash(source, start, length)
    const known = this.bytes[slot]
    if (known === undefined || known.length !== length) return undefined
    for (let i = 0; i < length; i++) if (known[i] !== source[start + i]) return undefined
    return this.strings[slot]
  }

  /** Remembers that these bytes decode to `key`. */
  set(source: Uint8Array, start: number, length: number, key: string): void {
    const slot = hash(source, start, length)
    this.bytes[slot] = source.slice(start, start + length)
    this.strings[slot] = key
  }
}

function hash(source: Uint8Array, start: number, length: number): number {
  let h = length * 0x9e3779b1
  for (let i = 0; i < length; i++) h = Math.imul(h ^ (source[start + i] as number), 0x01000193)
  return (h ^ (h >>> 15)) & (SLOTS - 1)
}
