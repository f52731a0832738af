// SHA-256 on Node (and Bun): node:crypto, in this thread for envelopes up to 1 MiB (a few µs for
// the usual sizes, where WebCrypto's trip through libuv's thread pool costs ~0.2 ms a request),
// in the pool above (a 16 MiB envelope would hold the event loop ~15 ms).
import { createHash } from 'node:crypto'
import { sha256 as inPool } from './sha256-web.js'

const IN_THREAD = 1024 * 1024

/** The SHA-256 of `bytes`. */
export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.length <= IN_THREAD) return createHash('sha256').update(bytes).digest()
  return inPool(bytes)
}
