import type { CompressionBackend } from './compression.js'
import { Decoder } from './decoder.js'
import { DepthExceeded, Encoder } from './encoder.js'
import { crc32Range } from './crc32.js'
import { headerLength, MAX_TIME, readHeader, writeHeader, writeUint32, type EnvelopeMeta, type Header } from './envelope.js'
import { StowageErrorCode } from './error-codes.js'
import { hasCycle } from './find-cycle.js'
import { CRC_SIZE } from './format.js'
import { settle, type CodecOptions, type Settled } from './options.js'
import { StowageError } from './stowage-error.js'

/** A codec with its options settled once: the fast way to encode and decode many values. */
export interface Codec {
  /** The options in force, defaults filled in. */
  readonly options: Readonly<Required<Omit<CodecOptions, 'schemaVersion'>>> & { readonly schemaVersion: number | undefined }
  /**
   * Encodes a value into a new, exact-length envelope that owns its memory.
   * @param value - any value of the supported types (see the package README).
   * @param meta - metadata for this envelope; its `schemaVersion` overrides the codec's. Defaults to none.
   * @returns the envelope bytes.
   * @throws {StowageError} UNSUPPORTED_TYPE, CYCLE, LIMIT_EXCEEDED, INVALID_ARGUMENT (bad meta).
   */
  encode(value: unknown, meta?: EnvelopeMeta): Uint8Array
  /**
   * Decodes an envelope.
   * @param bytes - an envelope produced by any Stowage codec.
   * @returns the value, typed as `T` by your assertion (nothing is checked against `T`).
   * @throws {StowageError} BAD_MAGIC, UNSUPPORTED_VERSION, TRUNCATED, CHECKSUM_MISMATCH, CORRUPT, LIMIT_EXCEEDED, UNSUPPORTED_TYPE, INVALID_ARGUMENT.
   */
  decode<T = unknown>(bytes: Uint8Array): T
  /**
   * Decodes an envelope and returns its metadata with the value.
   * @param bytes - an envelope produced by any Stowage codec.
   * @returns `{ value, schemaVersion, freshUntil }`.
   * @throws {StowageError} as {@link Codec.decode}.
   */
  decodeEnvelope<T = unknown>(bytes: Uint8Array): DecodedEnvelope<T>
  /**
   * Like {@link Codec.encode}, but large payloads are deflated off the calling thread
   * (a zlib thread on Node, a worker in browsers). Same bytes as `encode`.
   * @throws {StowageError} as {@link Codec.encode} (as a rejection).
   */
  encodeAsync(value: unknown, meta?: EnvelopeMeta): Promise<Uint8Array>
  /**
   * Like {@link Codec.decode}, but large payloads are inflated without blocking
   * (zlib's thread on Node, DecompressionStream in browsers).
   * @throws {StowageError} as {@link Codec.decode} (as a rejection).
   */
  decodeAsync<T = unknown>(bytes: Uint8Array): Promise<T>
  /**
   * {@link Codec.decodeEnvelope} without blocking on large payloads, as {@link Codec.decodeAsync}.
   * @throws {StowageError} as {@link Codec.decode} (as a rejection).
   */
  decodeEnvelopeAsync<T = unknown>(bytes: Uint8Array): Promise<DecodedEnvelope<T>>
}

/** A decoded value with the metadata its envelope carried. */
export interface DecodedEnvelope<T> {
  readonly value: T
  readonly schemaVersion: number | undefined
  readonly freshUntil: number | undefined
}

function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message)
}

class StowageCodec implements Codec {
  readonly options: Codec['options']
  private readonly encoder: Encoder
  private readonly decoder: Decoder
  private readonly defaultMeta: EnvelopeMeta

  constructor(
    private readonly settings: Settled,
    private readonly backend: CompressionBackend,
  ) {
    this.options = Object.freeze({ ...settings })
    this.defaultMeta = { schemaVersion: settings.schemaVersion }
    this.encoder = new Encoder(settings)
    this.decoder = new Decoder(settings)
  }

  encode(value: unknown, meta?: EnvelopeMeta): Uint8Array {
    const settled = this.meta(meta)
    return this.withPayload(value, (payload) => {
      const deflated = this.wantsDeflate(payload) ? this.backend.deflateSync(payload, this.settings.level) : undefined
      return this.seal(payload, deflated, settled)
    })
  }

  async encodeAsync(value: unknown, meta?: EnvelopeMeta): Promise<Uint8Array> {
    const settled = this.meta(meta)
    // A payload that stays in this thread is sealed at once; one handed to another thread must
    // outlive the shared encoder buffer across the await, so it is copied.
    const { asyncDeflateMin, deflateSync } = this.backend
    const result = this.withPayload(value, (p) => {
      if (!this.wantsDeflate(p)) return this.seal(p, undefined, settled)
      if (p.length < asyncDeflateMin) return this.seal(p, deflateSync(p, this.settings.level), settled)
      return { payload: p.slice() }
    })
    if (result instanceof Uint8Array) return result
    return this.seal(result.payload, await this.backend.deflateAsync(result.payload, this.settings.level), settled)
  }

  decode<T = unknown>(bytes: Uint8Array): T {
    return this.decodeEnvelope<T>(bytes).value
  }

  decodeEnvelope<T = unknown>(bytes: Uint8Array): DecodedEnvelope<T> {
    const header = readHeader(bytes)
    const body = this.body(bytes, header)
    const payload = header.compression === 'none' ? body : this.backend.inflateSync(body, header.payloadLength)
    return { value: this.open(bytes, header, payload) as T, schemaVersion: header.schemaVersion, freshUntil: header.freshUntil }
  }

  private meta(meta: EnvelopeMeta | undefined): EnvelopeMeta {
    if (meta === undefined) return this.defaultMeta
    const schemaVersion = meta.schemaVersion ?? this.settings.schemaVersion
    const { freshUntil } = meta
    if (schemaVersion !== undefined && !(Number.isInteger(schemaVersion) && schemaVersion >= 0 && schemaVersion <= 0xffffffff)) {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `schemaVersion must be an integer from 0 to ${0xffffffff}`)
    }
    if (freshUntil !== undefined && !(Number.isInteger(freshUntil) && freshUntil >= 0 && freshUntil <= MAX_TIME)) {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'freshUntil must be a time in whole milliseconds since the epoch')
    }
    return { schemaVersion, freshUntil }
  }

  async decodeAsync<T = unknown>(bytes: Uint8Array): Promise<T> {
    return (await this.decodeEnvelopeAsync<T>(bytes)).value
  }

  async decodeEnvelopeAsync<T = unknown>(bytes: Uint8Array): Promise<DecodedEnvelope<T>> {
    const header = readHeader(bytes)
    const body = this.body(bytes, header)
    const payload = header.compression === 'none' ? body : await this.backend.inflateAsync(body, header.payloadLength)
    return { value: this.open(bytes, header, payload) as T, schemaVersion: header.schemaVersion, freshUntil: header.freshUntil }
  }

  // Runs `use` on the MessagePack payload while it sits in the encoder's reused buffer.
  private withPayload<R>(value: unknown, use: (payload: Uint8Array) => R): R {
    // An extension's encode function may call this codec again: give that call its own encoder.
    const encoder = this.encoder.busy ? new Encoder(this.settings) : this.encoder
    encoder.busy = true
    try {
      return use(encoder.encode(value))
    } catch (e) {
      throw this.encodeError(e, value)
    } finally {
      encoder.busy = false
      encoder.trim()
    }
  }

  private encodeError(e: unknown, value: unknown): StowageError {
    if (e instanceof DepthExceeded || isStackOverflow(e)) {
      return hasCycle(value)
        ? new StowageError(StowageErrorCode.CYCLE, 'the value refers to itself; Stowage stores trees, not graphs')
        : new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `the value is nested deeper than maxDepth (${this.settings.maxDepth})`, {
            cause: e instanceof DepthExceeded ? undefined : e,
          })
    }
    if (StowageError.isInstance(e)) return e
    return new StowageError(StowageErrorCode.UNSUPPORTED_TYPE, `the value could not be encoded: ${String((e as Error)?.message ?? e)}`, { cause: e })
  }

  private wantsDeflate(payload: Uint8Array): boolean {
    const { compress, compressThreshold } = this.settings
    return compress === 'always' || (compress === 'auto' && payload.length >= compressThreshold)
  }

  private seal(payload: Uint8Array, deflated: Uint8Array | undefined, meta: EnvelopeMeta): Uint8Array {
    const { compress, minSavings } = this.settings
    const keep =
      deflated !== undefined && (compress === 'always' || deflated.length + 4 <= payload.length * (1 - minSavings))
    const body = keep ? (deflated as Uint8Array) : payload
    const length = headerLength(keep, meta)
    const out = new Uint8Array(length + CRC_SIZE + body.length)
    writeHeader(out, payload.length, keep, meta)
    const crc = this.backend.crc32(payload, crc32Range(out, 0, length))
    writeUint32(out, length, crc)
    out.set(body, length + CRC_SIZE)
    return out
  }

  private body(bytes: Uint8Array, header: Header): Uint8Array {
    const { maxBytes } = this.settings
    if (header.payloadLength > maxBytes) {
      throw new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `the payload is ${header.payloadLength} bytes, more than maxBytes (${maxBytes})`)
    }
    const body = bytes.subarray(header.headerLength + CRC_SIZE)
    // Raw deflate expands at most ~1032:1; a larger announced size is a lie, refused before allocating for it.
    if (header.compression !== 'none' && header.payloadLength > body.length * 1032 + 64) {
      throw new StowageError(StowageErrorCode.CORRUPT, 'the announced payload size is impossible for its compressed size')
    }
    return body
  }

  private open(bytes: Uint8Array, header: Header, payload: Uint8Array): unknown {
    const crc = this.backend.crc32(payload, crc32Range(bytes, 0, header.headerLength))
    if (crc !== header.crc) {
      throw new StowageError(StowageErrorCode.CHECKSUM_MISMATCH, 'the envelope is damaged: its CRC-32 does not match')
    }
    const decoder = this.decoderFor()
    try {
      return decoder.decode(payload)
    } catch (e) {
      if (StowageError.isInstance(e)) throw e
      if (isStackOverflow(e)) throw new StowageError(StowageErrorCode.LIMIT_EXCEEDED, 'the value is nested too deeply to decode', { cause: e })
      throw new StowageError(StowageErrorCode.CORRUPT, `the value could not be decoded: ${String((e as Error)?.message ?? e)}`, { cause: e })
    } finally {
      if (decoder === this.decoder) this.decoderBusy = false
    }
  }

  private decoderBusy = false
  private decoderFor(): Decoder {
    if (this.decoderBusy) return new Decoder(this.settings)
    this.decoderBusy = true
    return this.decoder
  }
}

/**
 * Creates a codec for a compression backend. The public entries bind the backend
 * (fflate in the portable build, zlib on Node).
 * @throws {StowageError} INVALID_ARGUMENT for bad options.
 */
export function createCodecWith(backend: CompressionBackend, options?: CodecOptions): Codec {
  return new StowageCodec(settle(options), backend)
}
