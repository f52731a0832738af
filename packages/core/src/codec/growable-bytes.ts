// A byte buffer that grows as it is written, made by the platform (a Buffer on Node, whose UTF-8
// writer is the fastest there): the string tables' buffers.
import type { Platform } from './platform/platform.js'

const INITIAL = 64 * 1024
const EMPTY = new Uint8Array(0)

/** Bytes `[0, pos)` of `bytes`; `sink` is the same memory as the platform allocated it. */
export class GrowableBytes {
  bytes: Uint8Array = EMPTY
  sink: Uint8Array = EMPTY
  pos = 0

  constructor(private readonly platform: Pick<Platform, 'alloc'>) {}

  /** Makes room for `n` more bytes; `false` when that would pass `limit` bytes in all. */
  room(n: number, limit: number): boolean {
    const need = this.pos + n
    if (need <= this.bytes.length) return true
    if (need > limit) return false
    const sink = this.platform.alloc(Math.max(INITIAL, need * 2))
    const next = new Uint8Array(sink.buffer, sink.byteOffset, sink.byteLength)
    next.set(this.bytes.subarray(0, this.pos))
    this.sink = sink
    this.bytes = next
    return true
  }

  /** Drops a buffer grown for one huge value. */
  trim(): void {
    if (this.bytes.length > 64 * INITIAL) this.sink = this.bytes = EMPTY
  }
}
