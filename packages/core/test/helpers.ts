// Shared by the tests that run both in Node and in Chromium: nothing here may use Buffer or node:.
import { crc32 } from '../src/codec/crc32.js'
import { StowageError } from '../src/errors/stowage-error.js'

export { crc32 }

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

export function fromHex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16)
  return out
}

/** Wraps arbitrary payload bytes in a valid, uncompressed envelope (correct CRC), as FORMAT.md says. */
export function sealRaw(payload: Uint8Array, version = 1): Uint8Array {
  const out = new Uint8Array(8 + payload.length)
  out.set([0xc1, version, 0, 0])
  const crc = crc32(payload, crc32(out.subarray(0, 4)))
  new DataView(out.buffer).setUint32(4, crc)
  out.set(payload, 8)
  return out
}

/**
 * Wraps a raw deflate stream in a valid compressed envelope, built by hand as FORMAT.md says:
 * version 2 checks the header and the stream as stored, version 1 the header and `payload` (what
 * the stream inflates to). A dictionary id makes it compression id 2 (version 2 only).
 */
export function sealDeflatedRaw(stream: Uint8Array, payload: Uint8Array, options: { version?: 1 | 2; announced?: number; dictionaryId?: number } = {}): Uint8Array {
  const version = options.version ?? 2
  const dictionary = options.dictionaryId !== undefined
  const headerLength = 4 + (dictionary ? 4 : 0) + 4
  const out = new Uint8Array(headerLength + 4 + stream.length)
  const view = new DataView(out.buffer)
  out.set([0xc1, version, dictionary ? 2 : 1, 0])
  if (dictionary) view.setUint32(4, options.dictionaryId as number)
  view.setUint32(headerLength - 4, options.announced ?? payload.length)
  const covered = version === 1 ? payload : stream
  view.setUint32(headerLength, crc32(covered, crc32(out.subarray(0, headerLength))))
  out.set(stream, headerLength + 4)
  return out
}

/** Runs `fn` and returns what it threw (or undefined). */
export function caught(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

/** Runs `fn` and returns the StowageError it threw; fails the test for anything else, or nothing. */
export function thrown(fn: () => unknown): StowageError {
  try {
    fn()
  } catch (e) {
    if (StowageError.isInstance(e)) return e
    throw e
  }
  throw new Error('did not throw')
}
