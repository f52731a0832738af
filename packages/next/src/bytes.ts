// Next hands Buffers and expects Buffers back (it calls Buffer methods on RSC payloads and route
// bodies); the codec gives any bytes back as a plain Uint8Array. These put the Buffer view back,
// over the same memory.
import { Buffer } from 'node:buffer'

/** `bytes` as a Buffer over the same memory, or `value` unchanged when it is not bytes. */
export function asBuffer<T>(value: T): T | Buffer {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value
}

/** The incremental-cache value with its binary parts as Buffers again: rscData, segmentData, body, buffer. */
export function withBuffers<V extends { readonly kind: string } & Record<string, unknown>>(value: V): V {
  const out: Record<string, unknown> = { ...value }
  for (const field of ['rscData', 'body', 'buffer'] as const) if (field in out) out[field] = asBuffer(out[field])
  if (out.segmentData instanceof Map) out.segmentData = new Map([...out.segmentData].map(([path, data]) => [path, asBuffer(data)]))
  return out as V
}

/** A stream that delivers `bytes` in one chunk (each read of a 'use cache' entry gets its own). */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes.slice())
      controller.close()
    },
  })
}

/** Every chunk of a stream, joined. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let length = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    length += value.byteLength
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, length)
}
