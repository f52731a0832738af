// The codecs behind the one-call functions (`encode(value, options)`, …). Making a codec settles
// its options and allocates an encoder buffer, a key trie and a decoder: ~100 µs, against ~2 µs
// to encode a webhook. Callers that pass a fresh options object on every call (`{ compress:
// 'never' }`) would pay it each time, so codecs are kept: by content for options of plain values
// only, in a small LRU; by identity (a WeakMap) for options with extensions or dictionaries, which
// hold functions and bytes.
import type { Codec } from './codec.js'
import type { CodecOptions } from './options.js'

/** How many codecs made for options matched by content are kept, the least recently used dropped first. */
export const MAX_CODECS_BY_CONTENT = 32

// Every option that is a plain value; extensions and dictionaries are lists of functions and bytes.
const PLAIN_OPTIONS = ['compress', 'level', 'compressThreshold', 'minSavings', 'maxBytes', 'maxDepth', 'maxItems', 'maxWorkPerByte', 'schemaVersion'] as const satisfies ReadonlyArray<keyof CodecOptions>

function isEmptyList(list: unknown): boolean {
  return list === undefined || (Array.isArray(list) && list.length === 0)
}

// A string naming the content of options made of plain values only, or undefined for any other
// options. The type of each value is part of it, so `1` and `'1'` (which settle refuses) differ.
function contentKey(options: CodecOptions): string | undefined {
  if (!isEmptyList(options.extensions) || !isEmptyList(options.dictionaries)) return undefined
  let key = ''
  for (const name of PLAIN_OPTIONS) {
    const value: unknown = options[name]
    if (value === undefined) key += ';'
    else if (typeof value === 'string') key += `s${value};`
    else if (typeof value === 'number') key += `n${value};`
    else return undefined
  }
  return key
}

/** Codecs kept by options, made by `make` the first time each options are seen. */
export class CodecCache {
  private readonly byContent = new Map<string, Codec>()
  private readonly byIdentity = new WeakMap<object, Codec>()
  // The most recently used entry: calls in a row with equal options skip the LRU's reordering.
  private lastKey: string | undefined
  private last: Codec | undefined

  constructor(private readonly make: (options: CodecOptions) => Codec) {}

  /**
   * The codec for `options`, made once.
   * @throws {StowageError} INVALID_ARGUMENT for bad options (nothing is kept then).
   */
  get(options: CodecOptions): Codec {
    const key = contentKey(options)
    if (key === undefined) {
      let codec = this.byIdentity.get(options)
      if (codec === undefined) this.byIdentity.set(options, (codec = this.make(options)))
      return codec
    }
    if (key === this.lastKey) return this.last as Codec
    let codec = this.byContent.get(key)
    if (codec !== undefined) {
      // Most recently used last: Map keeps insertion order.
      this.byContent.delete(key)
    } else {
      codec = this.make(options)
      if (this.byContent.size >= MAX_CODECS_BY_CONTENT) this.byContent.delete(this.byContent.keys().next().value as string)
    }
    this.byContent.set(key, codec)
    this.lastKey = key
    this.last = codec
    return codec
  }
}
