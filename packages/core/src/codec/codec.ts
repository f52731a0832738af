// The codec chains the three steps: MessagePack (encoder.ts / decoder.ts), deflate (the platform
// file), envelope (envelope.ts). Options are settled once, per codec.
import { StowageErrorCode } from '../errors/error-codes.js'
import { corrupt, invalidArgument, limitExceeded, truncated, unsupportedType } from '../errors/make.js'
import { StowageError } from '../errors/stowage-error.js'
import { crc32 as jsCrc32, crc32Range } from './crc32.js'
import { Decoder } from './decoder.js'
import { DepthExceeded, Encoder, Refused } from './encoder.js'
import { checkCrc, checkInflatable, checkMaxBytes, headerMeta, MAX_TIME, readHeader, sealDeflated, sealPayload, type Crc32, type EnvelopeMeta, type Header, type SealMeta } from './envelope.js'
import { PayloadCopies } from './payload-copies.js'
import { encodeTagStamp } from './tag-stamp.js'
import { hasCycle, pathTo } from './find-path.js'
import { CRC_SIZE, MAX_HEADER_SIZE } from './format.js'
import { payloadWork, workBudget } from './work.js'
import type { CompressionLevel, InflateFailure, Platform } from './platform/platform.js'
import { LARGE_PAYLOAD, LEVEL_LARGE, LEVEL_MEDIUM, LEVEL_SMALL, MEDIUM_PAYLOAD, settle, wantsDeflate, type CodecOptions, type Settled } from './options.js'

/** A codec with its options settled once: the fast way to encode and decode many values. */
export interface Codec {
  /** The options in force, defaults filled in. */
  readonly options: Readonly<Required<Omit<CodecOptions, 'schemaVersion'>>> & { readonly schemaVersion: number | undefined }
  /**
   * Encodes a value into a new, exact-length envelope.
   * @param value - any value of the supported types (see the package README).
   * @param meta - metadata for this envelope; its `schemaVersion` overrides the codec's. Defaults to none.
   * @returns the envelope bytes: on Node a `Buffer` (a Uint8Array subclass, hence the type), which
   *   Redis clients, `fs` and sockets take as bytes; elsewhere a plain Uint8Array. So are the bytes
   *   of every encode and inflate method of the codec.
   * @throws {StowageError} UNSUPPORTED_TYPE, CYCLE, LIMIT_EXCEEDED (the message names where in the value), INVALID_ARGUMENT (bad meta).
   */
  encode(value: unknown, meta?: EnvelopeMeta): Uint8Array
  /**
   * {@link Codec.encode}, also returning the size of the MessagePack payload (before deflate), so
   * callers that count bytes need not read the header back.
   * @throws {StowageError} as {@link Codec.encode}.
   */
  encodeEnvelope(value: unknown, meta?: EnvelopeMeta): EncodedEnvelope
  /**
   * Like {@link Codec.encode}, but large payloads are deflated without blocking: in zlib's thread
   * pool on Node (same bytes as `encode`), by the native CompressionStream in browsers from 256 KiB
   * of payload (other deflate bytes than `encode`'s fflate; every reader reads both).
   * @param value - as for {@link Codec.encode}.
   * @param meta - as for {@link Codec.encode}.
   * @param options - `deflate`: deflates the payload instead of the runtime (in a Worker, say),
   * whenever this codec deflates one without a dictionary; see {@link AsyncDeflate}.
   * @throws {StowageError} as {@link Codec.encode} (as a rejection); what `deflate` rejects with, as it is.
   */
  encodeAsync(value: unknown, meta?: EnvelopeMeta, options?: AsyncEncodeOptions): Promise<Uint8Array>
  /**
   * {@link Codec.encodeEnvelope} without blocking on large payloads, as {@link Codec.encodeAsync}.
   * @throws {StowageError} as {@link Codec.encode} (as a rejection); what `deflate` rejects with, as it is.
   */
  encodeEnvelopeAsync(value: unknown, meta?: EnvelopeMeta, options?: AsyncEncodeOptions): Promise<EncodedEnvelope>
  /**
   * Decodes an envelope.
   * @param bytes - an envelope produced by any Stowage codec (format version 1 or 2), a Uint8Array or a Node Buffer.
   * @param options - `freeze`: the value comes deep-frozen; see {@link DecodeOptions}.
   * @returns the value, typed as `T` by your assertion (nothing is checked against `T`).
   * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CHECKSUM_MISMATCH, CORRUPT, LIMIT_EXCEEDED, UNSUPPORTED_TYPE (an unregistered extension, a dictionary this codec lacks), INVALID_ARGUMENT (a string or other non-bytes: the message names the likely cause).
   */
  decode<T = unknown>(bytes: Uint8Array, options?: DecodeOptions): T
  /**
   * Decodes an envelope and returns its metadata with the value.
   * @param bytes - an envelope produced by any Stowage codec.
   * @param options - as for {@link Codec.decode}.
   * @returns `{ value, schemaVersion, freshUntil, tags }`.
   * @throws {StowageError} as {@link Codec.decode}.
   */
  decodeEnvelope<T = unknown>(bytes: Uint8Array, options?: DecodeOptions): DecodedEnvelope<T>
  /**
   * Like {@link Codec.decode}, but large payloads are inflated without blocking
   * (zlib's thread pool on Node, the native DecompressionStream in browsers from 16 KiB of payload).
   * @param bytes - an envelope, as for {@link Codec.decode}.
   * @param options - `inflate`: inflates the deflate stream instead of the runtime (in a Worker,
   * say); see {@link AsyncInflate}. `freeze`: as for {@link Codec.decode}.
   * @throws {StowageError} as {@link Codec.decode} (as a rejection); what `inflate` rejects with, as it is.
   */
  decodeAsync<T = unknown>(bytes: Uint8Array, options?: AsyncDecodeOptions): Promise<T>
  /**
   * {@link Codec.decodeEnvelope} without blocking on large payloads, as {@link Codec.decodeAsync}.
   * @throws {StowageError} as {@link Codec.decode} (as a rejection); what `inflate` rejects with, as it is.
   */
  decodeEnvelopeAsync<T = unknown>(bytes: Uint8Array, options?: AsyncDecodeOptions): Promise<DecodedEnvelope<T>>
  /**
   * The envelope with its payload stored uncompressed: the same value and metadata, inflated once
   * (its CRC checked, before inflating from format version 2 on, the limits of `decode` applied: a payload past 64 KiB and its stored
   * size is decoded once, within the work the received bytes allow, which the larger inflated form
   * would raise), so that later reads decode without
   * inflating. A browser keeps what a server sent deflated this way (fflate inflates in
   * JavaScript on every read otherwise).
   * @param bytes - an envelope, compressed or not (then returned as it is).
   * @returns an uncompressed envelope.
   * @throws {StowageError} as {@link Codec.decode}.
   */
  inflateEnvelope(bytes: Uint8Array): Uint8Array
  /**
   * {@link Codec.inflateEnvelope} without blocking on large payloads (zlib's thread pool on Node,
   * the native DecompressionStream in browsers from 16 KiB of payload).
   * @throws {StowageError} as {@link Codec.inflateEnvelope} (as a rejection).
   */
  inflateEnvelopeAsync(bytes: Uint8Array): Promise<Uint8Array>
}

/**
 * Inflates a raw deflate stream (no preset dictionary) somewhere other than the calling thread (a
 * Worker, say), for {@link Codec.decodeAsync}. It must resolve to exactly `payloadLength` bytes
 * (anything else is CORRUPT), stop before producing more (a decompression bomb), and reject bad
 * deflate data with a StowageError (CORRUPT); other rejections reach the caller as they are, so
 * that it can tell a failed worker from damaged bytes. The envelope's CRC-32 and limits are
 * checked before it is called.
 */
export type AsyncInflate = (deflated: Uint8Array, payloadLength: number) => Promise<Uint8Array>

/**
 * Deflates a payload somewhere other than the calling thread (a Worker, say), for
 * {@link Codec.encodeAsync}: it must resolve to a raw deflate stream (no zlib or gzip wrapper, no
 * preset dictionary) of exactly `payload`, at a level of its choosing. The codec seals it (header,
 * CRC-32) and, as always, keeps the payload uncompressed when deflating does not pay. `payload` is
 * the codec's to reuse once the promise has resolved: copy what is needed later (as when posting
 * it to a Worker) before resolving.
 */
export type AsyncDeflate = (payload: Uint8Array) => Promise<Uint8Array>

/** Options of {@link Codec.encodeAsync} and {@link Codec.encodeEnvelopeAsync}. */
export interface AsyncEncodeOptions {
  /** Deflates payloads that this codec deflates without a dictionary, instead of the runtime's deflate. */
  readonly deflate?: AsyncDeflate
}

/** Options of {@link Codec.decodeAsync} and {@link Codec.decodeEnvelopeAsync}. */
export interface DecodeOptions {
  /**
   * The value comes deep-frozen (`Object.freeze`): every array and plain object in it, also those
   * inside Maps' values and Sets; Maps, Sets, Dates, typed arrays and what an extension returns
   * other than a plain object or array stay as they are. Built frozen by the decoder, which costs
   * less than freezing the value afterwards (what a Cache's in-process tier does; it asks for
   * this). An extension's `decode` still gets its data unfrozen. Defaults to `false`.
   */
  readonly freeze?: boolean
}

/** Options of {@link Codec.decodeAsync} and {@link Codec.decodeEnvelopeAsync}. Every field is optional. */
export interface AsyncDecodeOptions extends DecodeOptions {
  /** Inflates envelopes deflated without a dictionary, instead of the runtime's inflate. */
  readonly inflate?: AsyncInflate
}

/** An envelope with the size of the MessagePack payload it holds. */
export interface EncodedEnvelope {
  readonly bytes: Uint8Array
  /** Size of the MessagePack payload before deflate. */
  readonly payloadLength: number
}

/** A decoded value with the metadata its envelope carried. */
export interface DecodedEnvelope<T> {
  readonly value: T
  readonly schemaVersion: number | undefined
  readonly freshUntil: number | undefined
  readonly tags: ReadonlyMap<string, number> | undefined
}

interface Dictionary {
  readonly id: number
  readonly bytes: Uint8Array
}

// A compressed payload announced at this size or more is first looked at through the inflated
// start of its stream (PREFIX_INPUT bytes of it, at most ~260 kB of output): a small envelope that
// announces tens of millions of items, or a 60 MB BIGINT, is refused there, in about a
// millisecond, instead of after inflating the whole payload (apps/bench/RESULTS.md, "Hostile inputs").
const PREFIX_SCAN_MIN = 1024 * 1024
const PREFIX_INPUT = 256

// Below this size the JavaScript CRC table beats the cost of calling into native code (measured
// on Node 20: 144 vs 173 ns at 128 bytes, 281 vs 203 ns at 256). The portable build's WebAssembly
// CRC (platform.fastCrc32 there) takes the same threshold: a header is checked in JavaScript, an
// envelope's payload there.
const NATIVE_CRC_MIN = 192

// Nesting past which an encoded value is decoded once before it is stored (withPayload).
const DEEP_NESTING = 1_000

function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message)
}

const hex8 = (n: number) => n.toString(16).padStart(8, '0')

function inflateError(e: unknown): StowageError {
  if (StowageError.isInstance(e)) return e
  const problem = (e as Partial<InflateFailure> | undefined)?.problem
  const message = e instanceof Error ? e.message : 'the compressed payload is not valid deflate data'
  if (problem === 'truncated') return truncated(message, e)
  if (problem === 'trailing-bytes') return corrupt('bytes follow the end of the compressed payload', e)
  return corrupt(message, e)
}

class StowageCodec implements Codec {
  readonly options: Codec['options']
  private readonly encoder: Encoder
  private readonly decoder: Decoder
  private readonly defaultMeta: SealMeta
  private readonly crc32: Crc32
  private readonly copies = new PayloadCopies()
  private readonly dictionaries: readonly Dictionary[]

  constructor(
    private readonly settings: Settled,
    private readonly platform: Platform,
  ) {
    this.options = Object.freeze({ ...settings })
    this.defaultMeta = { schemaVersion: settings.schemaVersion }
    this.encoder = new Encoder(settings, platform)
    this.decoder = new Decoder(settings, platform)
    platform.prepare?.()
    const native = platform.fastCrc32
    this.crc32 =
      native === undefined
        ? crc32Range
        : (data, start, end, crc = 0) => (end - start < NATIVE_CRC_MIN ? crc32Range(data, start, end, crc) : native(start === 0 && end === data.length ? data : data.subarray(start, end), crc))
    this.dictionaries = settings.dictionaries.map((bytes) => ({ id: jsCrc32(bytes), bytes }))
  }

  encode(value: unknown, meta?: EnvelopeMeta): Uint8Array {
    return this.encodeEnvelope(value, meta).bytes
  }

  async encodeAsync(value: unknown, meta?: EnvelopeMeta, options?: AsyncEncodeOptions): Promise<Uint8Array> {
    return (await this.encodeEnvelopeAsync(value, meta, options)).bytes
  }

  encodeEnvelope(value: unknown, meta?: EnvelopeMeta): EncodedEnvelope {
    const settled = this.meta(meta)
    return this.withPayload(value, (buf, start, end, version, work) => this.seal(buf, start, end, work, settled, version))
  }

  async encodeEnvelopeAsync(value: unknown, meta?: EnvelopeMeta, options?: AsyncEncodeOptions): Promise<EncodedEnvelope> {
    const settled = this.meta(meta)
    const dictionary = this.dictionaries[0]
    const deflate = dictionary === undefined ? options?.deflate : undefined
    // A payload deflated in this thread is sealed at once; one handed to another thread must
    // outlive the shared encoder buffer across the await, so it is copied (with room for a header).
    let work = 0
    const sealedOrCopy = this.withPayload(value, (buf, start, end, version, valueWork) => {
      if (!wantsDeflate(this.settings, end - start) || (deflate === undefined && end - start < this.platform.asyncDeflateMin)) return this.seal(buf, start, end, valueWork, settled, version)
      work = valueWork
      const copy = this.copies.take(MAX_HEADER_SIZE + end - start)
      copy.set(buf.subarray(start, end), MAX_HEADER_SIZE)
      return { copy, end: MAX_HEADER_SIZE + end - start, version }
    })
    if (!('copy' in sealedOrCopy)) return sealedOrCopy
    const { copy, end, version } = sealedOrCopy
    const payload = copy.subarray(MAX_HEADER_SIZE, end)
    const deflated = deflate !== undefined ? await deflate(payload) : await this.platform.deflateAsync(payload, this.level(payload.length), dictionary?.bytes)
    if (!(deflated instanceof Uint8Array)) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'the deflate given to encodeAsync resolved to something other than bytes')
    const bytes = this.keeps(deflated, payload, work)
      ? sealDeflated(payload.length, deflated, dictionary?.id, settled, this.crc32, version, this.payloadCrc(payload, dictionary))
      : sealPayload(copy, MAX_HEADER_SIZE, end, settled, this.crc32, version)
    // Both sealed forms are copies: the payload's memory serves a later call (not after a failed
    // deflate, which might still be reading it).
    this.copies.give(copy)
    return { bytes: this.platform.handOut(bytes), payloadLength: payload.length }
  }

  // Deflates when the policy says so and it pays, then seals; the payload is buf[start..end).
  private seal(buf: Uint8Array, start: number, end: number, work: number, meta: SealMeta, version: number): EncodedEnvelope {
    const payload = buf.subarray(start, end)
    if (wantsDeflate(this.settings, payload.length)) {
      const dictionary = this.dictionaries[0]
      const deflated = this.platform.deflateSync(payload, this.level(payload.length), dictionary?.bytes)
      if (this.keeps(deflated, payload, work)) return { bytes: this.platform.handOut(sealDeflated(payload.length, deflated, dictionary?.id, meta, this.crc32, version, this.payloadCrc(payload, dictionary))), payloadLength: payload.length }
    }
    return { bytes: this.platform.handOut(sealPayload(buf, start, end, meta, this.crc32, version)), payloadLength: payload.length }
  }

  decode<T = unknown>(bytes: Uint8Array, options?: DecodeOptions): T {
    return this.decodeEnvelope<T>(bytes, options).value
  }

  async decodeAsync<T = unknown>(bytes: Uint8Array, options?: AsyncDecodeOptions): Promise<T> {
    return (await this.decodeEnvelopeAsync<T>(bytes, options)).value
  }

  decodeEnvelope<T = unknown>(bytes: Uint8Array, options?: DecodeOptions): DecodedEnvelope<T> {
    const header = readHeader(bytes)
    const start = this.opened(bytes, header)
    const freeze = freezeOf(options)
    // Uncompressed: decoded where it lies, without a view of its own.
    if (header.compression === 'none') return this.read(bytes, header, bytes, start, freeze)
    return this.read(bytes, header, this.inflated(bytes, header, start), 0, freeze)
  }

  async decodeEnvelopeAsync<T = unknown>(bytes: Uint8Array, options?: AsyncDecodeOptions): Promise<DecodedEnvelope<T>> {
    const header = readHeader(bytes)
    const start = this.opened(bytes, header)
    const freeze = freezeOf(options)
    if (header.compression === 'none') return this.read(bytes, header, bytes, start, freeze)
    return this.read(bytes, header, await this.inflatedAsync(bytes, header, start, options?.inflate), 0, freeze)
  }

  inflateEnvelope(bytes: Uint8Array): Uint8Array {
    const header = readHeader(bytes)
    const start = this.opened(bytes, header)
    if (header.compression === 'none') return bytes
    return this.keptInflated(bytes, header, this.inflated(bytes, header, start))
  }

  async inflateEnvelopeAsync(bytes: Uint8Array): Promise<Uint8Array> {
    const header = readHeader(bytes)
    const start = this.opened(bytes, header)
    if (header.compression === 'none') return bytes
    return this.keptInflated(bytes, header, await this.inflatedAsync(bytes, header, start))
  }

  // The inflated payload sealed, once its value has been decoded within the budget of the bytes
  // received where the inflated form's would be larger (a payload past 64 KiB and its stored
  // size): stored uncompressed, a small envelope that asks more work than its size allows (4 Mi
  // empty objects in 4 kB) would become one a reader accepts. Where the two budgets are the same,
  // reading the kept form checks exactly what reading the received one would have.
  private keptInflated(bytes: Uint8Array, header: Header, payload: Uint8Array): Uint8Array {
    const received = bytes.length - header.headerLength - CRC_SIZE
    const { maxWorkPerByte } = this.settings
    if (workBudget(payload.length, maxWorkPerByte) > workBudget(received, maxWorkPerByte)) this.read(bytes, header, payload, 0, false)
    else if (header.formatVersion === 1) checkCrc(bytes, header, payload, 0, payload.length, this.crc32)
    return this.platform.handOut(this.sealInflated(bytes, header, payload))
  }

  // The payload of a compressed envelope whose stored bytes start at `start`, inflated and, when it
  // was deflated against a dictionary, checked against the payload CRC-32 the header carries.
  private inflated(bytes: Uint8Array, header: Header, start: number): Uint8Array {
    const { stored, dictionary } = this.compressedPart(bytes, header, start)
    let payload: Uint8Array
    try {
      payload = this.platform.inflateSync(stored, header.payloadLength, dictionary)
    } catch (e) {
      throw inflateError(e)
    }
    return this.checkedPayload(header, payload)
  }

  // `inflate`, when given, takes streams without a dictionary; what it rejects with is passed on.
  private async inflatedAsync(bytes: Uint8Array, header: Header, start: number, inflate?: AsyncInflate): Promise<Uint8Array> {
    const { stored, dictionary } = this.compressedPart(bytes, header, start)
    if (inflate !== undefined && dictionary === undefined) {
      const payload = await inflate(stored, header.payloadLength)
      if (!(payload instanceof Uint8Array) || payload.length !== header.payloadLength) {
        throw corrupt(`the compressed payload inflated to ${payload instanceof Uint8Array ? `${payload.length} bytes` : 'something other than bytes'}, not ${header.payloadLength}`)
      }
      return payload
    }
    let payload: Uint8Array
    try {
      payload = await this.platform.inflateAsync(stored, header.payloadLength, dictionary)
    } catch (e) {
      throw inflateError(e)
    }
    return this.checkedPayload(header, payload)
  }

  // A dictionary with the right id (a CRC-32) but other bytes inflates to a payload of the right
  // length and other content: the payload's own CRC-32 tells it.
  private checkedPayload(header: Header, payload: Uint8Array): Uint8Array {
    if (header.payloadCrc !== undefined && this.crc32(payload, 0, payload.length) !== header.payloadCrc) {
      throw new StowageError(StowageErrorCode.CHECKSUM_MISMATCH, `the envelope was compressed with dictionary ${hex8(header.dictionaryId!)}, and this codec's has other bytes (payload CRC-32 mismatch)`)
    }
    return payload
  }

  // The inflated payload under the same metadata (a version-1 envelope's CRC, over the inflated
  // payload, was checked by keptInflated); the result is version 2, whose payload layout is the same.
  private sealInflated(bytes: Uint8Array, header: Header, payload: Uint8Array): Uint8Array {
    return sealPayload(payload, 0, payload.length, headerMeta(header), this.crc32, Math.max(header.formatVersion, 2))
  }

  // The stored stream and its dictionary, once the start of a large payload has been looked at
  // before inflating it all (see PREFIX_SCAN_MIN).
  private compressedPart(bytes: Uint8Array, header: Header, start: number): { stored: Uint8Array; dictionary: Uint8Array | undefined } {
    const stored = bytes.subarray(start)
    // Inflating is work too (work.ts): a payload far larger than its stored size allows is refused
    // before any of it is inflated.
    if (payloadWork(header.payloadLength) > workBudget(stored.length, this.settings.maxWorkPerByte)) {
      throw limitExceeded(`the payload inflates to more than its stored size allows (maxWorkPerByte ${this.settings.maxWorkPerByte})`)
    }
    const dictionary = this.dictionaryFor(header)
    if (header.payloadLength >= PREFIX_SCAN_MIN) {
      const prefix = this.platform.inflatePrefix(stored, PREFIX_INPUT, dictionary)
      if (prefix.length > 0) this.decoding(() => this.decoder.scan(prefix, header.formatVersion, stored.length, header.payloadLength))
    }
    return { stored, dictionary }
  }

  // Checks the sizes and, for format version 2 (or anything uncompressed), the CRC, all before
  // anything is inflated; returns where the stored payload starts.
  private opened(bytes: Uint8Array, header: Header): number {
    const start = header.headerLength + CRC_SIZE
    checkMaxBytes(header, this.settings.maxBytes)
    if (header.formatVersion >= 2 || header.compression === 'none') checkCrc(bytes, header, bytes, start, bytes.length, this.crc32)
    checkInflatable(header, bytes.length - start)
    return start
  }

  private meta(meta: EnvelopeMeta | undefined): SealMeta {
    if (meta === undefined) return this.defaultMeta
    const schemaVersion = meta.schemaVersion ?? this.settings.schemaVersion
    const { freshUntil, tags } = meta
    if (schemaVersion !== undefined && !(Number.isInteger(schemaVersion) && schemaVersion >= 0 && schemaVersion <= 0xffffffff)) {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `schemaVersion must be an integer from 0 to ${0xffffffff}`)
    }
    if (freshUntil !== undefined && !(Number.isInteger(freshUntil) && freshUntil >= 0 && freshUntil <= MAX_TIME)) {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'freshUntil must be a time in whole milliseconds since the epoch')
    }
    return { schemaVersion, freshUntil, stamp: tags === undefined ? undefined : encodeTagStamp(tags) }
  }

  // Runs `use` on the MessagePack payload while it sits in an encoder's reused buffer, with room
  // for the longest envelope header before it, with its format version and the work it asks of a
  // reader (work.ts).
  // A value nested deeper than DEEP_NESTING is decoded once before it is sealed: a runtime's
  // call stack may hold its encode and not its decode, and it would then be stored unreadable.
  private withPayload<R>(value: unknown, use: (buf: Uint8Array, start: number, end: number, version: 2 | 3 | 4, work: number) => R): R {
    try {
      return this.encoder.write(value, MAX_HEADER_SIZE, this.settings.formatVersion, (buf, start, end, version, work, deepest) => {
        if (deepest > DEEP_NESTING) this.decoding(() => this.decoder.decode(buf.subarray(0, end), start, version, end - start))
        return use(buf, start, end, version, work)
      })
    } catch (e) {
      throw this.encodeError(e, value)
    }
  }

  private encodeError(e: unknown, value: unknown): StowageError {
    if (e instanceof Refused) {
      const path = pathTo(value, e.value)
      return unsupportedType(path === undefined ? `cannot store the value: ${e.reason}` : `cannot store the value at ${path}: ${e.reason}`)
    }
    if (e instanceof DepthExceeded || isStackOverflow(e)) {
      if (hasCycle(value)) return new StowageError(StowageErrorCode.CYCLE, 'the value refers to itself; Stowage stores trees, not graphs')
      if (!(e instanceof DepthExceeded)) return limitExceeded(`the value is nested deeper than this runtime's stack allows`, e)
      const path = pathTo(value, e.value)
      return limitExceeded(`the value is nested deeper than maxDepth (${this.settings.maxDepth})${path === undefined ? '' : ` at ${path}`}`)
    }
    if (StowageError.isInstance(e)) return e
    return unsupportedType(`the value could not be encoded: ${String((e as Error)?.message ?? e)}`, e)
  }

  private level(length: number): CompressionLevel {
    const { level } = this.settings
    if (level !== 'auto') return level
    return length < MEDIUM_PAYLOAD ? LEVEL_SMALL : length < LARGE_PAYLOAD ? LEVEL_MEDIUM : LEVEL_LARGE
  }

  // Whether to store the deflated form: it saves enough (or compress is 'always'), and a reader's
  // work budget, which the stored size sets, allows the value's work (work.ts); else the payload
  // is stored as is, which the encoder made sure a reader allows.
  // With a dictionary, the payload's CRC-32 for the header (compression id 3), unless the codec
  // writes for Stowage 0.2 readers (formatVersion 2), which know id 2 only.
  private payloadCrc(payload: Uint8Array, dictionary: Dictionary | undefined): number | undefined {
    return dictionary === undefined || this.settings.formatVersion === 2 ? undefined : this.crc32(payload, 0, payload.length)
  }

  private keeps(deflated: Uint8Array, payload: Uint8Array, work: number): boolean {
    const { compress, minSavings, maxWorkPerByte } = this.settings
    if (work + payloadWork(payload.length) > workBudget(deflated.length, maxWorkPerByte)) return false
    return compress === 'always' || deflated.length + 4 <= payload.length * (1 - minSavings)
  }

  private dictionaryFor(header: Header): Uint8Array | undefined {
    if (header.dictionaryId === undefined) return undefined
    const found = this.dictionaries.find((d) => d.id === header.dictionaryId)
    if (found === undefined) {
      throw unsupportedType(`the envelope was compressed with dictionary ${hex8(header.dictionaryId)}, which this codec does not have (see the dictionaries option)`)
    }
    return found.bytes
  }

  // Decodes the payload, `data[start..]`; a version-1 envelope's CRC covers the inflated payload, so it is checked here.
  private read<T>(bytes: Uint8Array, header: Header, data: Uint8Array, start: number, freeze: boolean): DecodedEnvelope<T> {
    if (header.formatVersion === 1 && header.compression !== 'none') checkCrc(bytes, header, data, start, data.length, this.crc32)
    const storedBytes = bytes.length - header.headerLength - CRC_SIZE
    return this.decoding(() => ({ value: this.decoder.decode(data, start, header.formatVersion, storedBytes, undefined, freeze) as T, schemaVersion: header.schemaVersion, freshUntil: header.freshUntil, tags: header.tags }))
  }

  // Turns what a user extension's decode may throw, or a stack overflow, into typed errors.
  private decoding<R>(run: () => R): R {
    try {
      return run()
    } catch (e) {
      if (StowageError.isInstance(e)) throw e
      if (isStackOverflow(e)) throw limitExceeded(`the value is nested deeper than this runtime's stack allows`, e)
      throw corrupt(`the value could not be decoded: ${String((e as Error)?.message ?? e)}`, e)
    }
  }
}

// DecodeOptions.freeze, checked: a value that is not a boolean is refused rather than read as false.
function freezeOf(options: DecodeOptions | undefined): boolean {
  const freeze = options?.freeze
  if (freeze === undefined || typeof freeze === 'boolean') return freeze === true
  throw invalidArgument(`the freeze option must be a boolean, got ${typeof freeze}`)
}

/**
 * Creates a codec for a platform (compression and string helpers). The public entry binds the
 * platform its `#platform` import condition picks.
 * @throws {StowageError} INVALID_ARGUMENT for bad options.
 */
export function createCodecWith(platform: Platform, options?: CodecOptions): Codec {
  return new StowageCodec(settle(options, platform.compressThreshold), platform)
}
