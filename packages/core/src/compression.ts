/** Raw deflate compression level: 0 stores, 1 is fastest, 9 is smallest. */
export type CompressionLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9

/**
 * What the codec needs from a platform: raw deflate (RFC 1951) both ways, and CRC-32.
 * The portable build uses fflate; the Node build native zlib. Their bytes are interchangeable.
 * Inflate functions must return exactly `expectedLength` bytes or throw a StowageError
 * (CORRUPT, TRUNCATED), and must never produce more than `expectedLength` bytes on the way.
 */
export interface CompressionBackend {
  readonly name: string
  /** Payloads smaller than this are deflated synchronously even by deflateAsync (the hand-off costs more). */
  readonly asyncDeflateMin: number
  deflateSync(data: Uint8Array, level: CompressionLevel): Uint8Array
  inflateSync(data: Uint8Array, expectedLength: number): Uint8Array
  deflateAsync(data: Uint8Array, level: CompressionLevel): Promise<Uint8Array>
  inflateAsync(data: Uint8Array, expectedLength: number): Promise<Uint8Array>
  crc32(data: Uint8Array, crc?: number): number
}
