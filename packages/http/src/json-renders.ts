// The JSON form of envelopes, rendered at most once per envelope and codec. Any client can ask for
// JSON with one header, and a small deflated envelope can hold a value whose JSON is megabytes:
// rendered per request, that is a cheap request that stalls the server. So renders (and the
// verdict "too large") are kept in a book bounded in bytes, least recently used out first.
import { createCodec, inspect, StowageError, StowageErrorCode, type Codec } from '@stowage/core'
import { toJsonWithin } from './json.js'

/**
 * Default of `ServeOptions.maxJsonBytes`: 256 KiB of JSON. Rendering that much (decode and
 * stringify, once per envelope) takes a few milliseconds.
 */
export const DEFAULT_MAX_JSON_BYTES = 256 * 1024
/** Bytes of JSON (and of the envelopes they came from) kept per codec, least recently used out first: 8 MiB. */
export const JSON_RENDERS_MAX_BYTES = 8 * 1024 * 1024
/** The largest `ServeOptions.maxJsonBytes`: 2 MiB, so a few renders always fit in {@link JSON_RENDERS_MAX_BYTES}. */
export const MAX_JSON_BYTES_LIMIT = JSON_RENDERS_MAX_BYTES / 4

// An envelope's JSON, or the limit it is known to pass.
interface JsonRender {
  readonly envelope: Uint8Array
  /** The JSON as UTF-8; absent when it passed `over`. */
  readonly json?: Uint8Array
  /** The limit it was found to pass (a render is tried again for a larger limit). */
  readonly over?: number
}

// What a kept render costs beside its bytes (the Map entry, the objects), roughly.
const RENDER_OVERHEAD = 128
const utf8 = new TextEncoder()
const books = new WeakMap<Codec, RenderBook>()

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function sizeOf(render: JsonRender): number {
  return render.envelope.length + (render.json?.length ?? 0) + RENDER_OVERHEAD
}

// Renders of one codec by ETag, checked against the envelope itself (a second look that costs a
// comparison of bytes, whatever made the ETag).
class RenderBook {
  readonly #renders = new Map<string, JsonRender>()
  readonly #pending = new Map<string, Promise<JsonRender>>()
  // The codec's options with decode limits that follow from a JSON limit, by that limit.
  readonly #limited = new Map<number, Codec>()
  #bytes = 0

  constructor(readonly codec: Codec) {}

  #codecFor(maxBytes: number): Codec {
    let limited = this.#limited.get(maxBytes)
    if (limited === undefined) {
      if (this.#limited.size >= 16) this.#limited.clear() // an app with many limits: keep a few
      // Every array element or object property takes at least two characters of JSON (a value and
      // a comma), so a value with more than half the limit in items cannot fit (but for properties
      // whose value is undefined, which JSON leaves out). Decode refuses them before building them.
      const { options } = this.codec
      limited = createCodec({ ...options, maxBytes: Math.min(options.maxBytes, payloadLimit(maxBytes)), maxItems: Math.min(options.maxItems, Math.floor(maxBytes / 2)) })
      this.#limited.set(maxBytes, limited)
    }
    return limited
  }

  find(etag: string, envelope: Uint8Array): JsonRender | undefined {
    const render = this.#renders.get(etag)
    if (render === undefined || !sameBytes(render.envelope, envelope)) return undefined
    this.#renders.delete(etag)
    this.#renders.set(etag, render)
    return render
  }

  async render(etag: string, envelope: Uint8Array, maxBytes: number): Promise<JsonRender> {
    const pending = this.#pending.get(etag)
    if (pending !== undefined) {
      const render = await pending
      if (sameBytes(render.envelope, envelope) && judges(render, maxBytes)) return render
    }
    const rendering = renderJson(this.#codecFor(maxBytes), envelope, maxBytes)
    this.#pending.set(etag, rendering)
    try {
      const render = await rendering
      this.#keep(etag, render)
      return render
    } finally {
      if (this.#pending.get(etag) === rendering) this.#pending.delete(etag)
    }
  }

  #keep(etag: string, render: JsonRender): void {
    const old = this.#renders.get(etag)
    if (old !== undefined) this.#bytes -= sizeOf(old)
    this.#renders.delete(etag)
    this.#renders.set(etag, render)
    this.#bytes += sizeOf(render)
    for (const [oldest, kept] of this.#renders) {
      if (this.#bytes <= JSON_RENDERS_MAX_BYTES) break
      this.#renders.delete(oldest)
      this.#bytes -= sizeOf(kept)
    }
  }
}

// Decodes (with the limits of #codecFor) and stringifies; the JSON stops growing at the limit.
async function renderJson(codec: Codec, bytes: Uint8Array, maxBytes: number): Promise<JsonRender> {
  // A copy: the bytes may be a view of a store's larger buffer, which the book would keep alive
  // (new Uint8Array, not slice(): a Node Buffer's slice() is a view of the same memory).
  const envelope = new Uint8Array(bytes)
  let value: unknown
  try {
    value = await codec.decodeAsync(envelope)
  } catch (e) {
    if (StowageError.isInstance(e) && e.code === StowageErrorCode.LIMIT_EXCEEDED) return { envelope, over: maxBytes }
    throw e
  }
  const text = toJsonWithin(value, maxBytes)
  const json = text === undefined ? undefined : utf8.encode(text)
  return json === undefined || json.length > maxBytes ? { envelope, over: maxBytes } : { envelope, json }
}

function bookOf(codec: Codec): RenderBook {
  let book = books.get(codec)
  if (book === undefined) books.set(codec, (book = new RenderBook(codec)))
  return book
}

/**
 * The JSON of an envelope under a limit, rendered once per envelope and codec while it stays in the book.
 * @returns the UTF-8 JSON, or `undefined` when the payload or the JSON is longer than `maxBytes`.
 * @throws {StowageError} the decode codes for an envelope `codec` cannot decode.
 */
export async function jsonOf(codec: Codec, etag: string, envelope: Uint8Array, maxBytes: number): Promise<Uint8Array | undefined> {
  if (payloadPasses(envelope, maxBytes)) return undefined
  const book = bookOf(codec)
  const kept = book.find(etag, envelope)
  const render = kept !== undefined && judges(kept, maxBytes) ? kept : await book.render(etag, envelope, maxBytes)
  return render.json !== undefined && render.json.length <= maxBytes ? render.json : undefined
}

/**
 * What is known of an envelope's JSON without rendering it (for HEAD): its UTF-8 bytes, `'over'`
 * when it passes `maxBytes`, `undefined` when only a render could tell.
 */
export function knownJsonOf(codec: Codec, etag: string, envelope: Uint8Array, maxBytes: number): Uint8Array | 'over' | undefined {
  if (payloadPasses(envelope, maxBytes)) return 'over'
  const kept = bookOf(codec).find(etag, envelope)
  if (kept === undefined || !judges(kept, maxBytes)) return undefined
  return kept.json !== undefined && kept.json.length <= maxBytes ? kept.json : 'over'
}

// A payload well past the limit is not decoded at all: its JSON is about as long or longer (but
// for floats and typed arrays, which the documented limit counts as their MessagePack size). A
// format-3 payload spends up to a few bytes more than JSON's quotes on each string (its string
// table's header and a reference), hence the slack; the render itself stops at the exact limit.
function payloadPasses(envelope: Uint8Array, maxBytes: number): boolean {
  return inspect(envelope).payloadLength > payloadLimit(maxBytes)
}

function payloadLimit(maxJsonBytes: number): number {
  return Math.floor(maxJsonBytes * 1.25) + 64
}

// Whether a kept render answers for `maxBytes`: a JSON does; "over" only for a limit no larger.
function judges(render: JsonRender, maxBytes: number): boolean {
  return render.json !== undefined || (render.over ?? 0) >= maxBytes
}
