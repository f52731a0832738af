// Shared by the tests that run both in Node and in Chromium: nothing here may use Buffer or node:.
import { crc32 } from '../src/crc32.js'

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

export function fromHex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16)
  return out
}

/** Wraps arbitrary payload bytes in a valid, uncompressed version-1 envelope (correct CRC), as FORMAT.md says. */
export function sealRaw(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + payload.length)
  out.set([0xc1, 1, 0, 0])
  const crc = crc32(payload, crc32(out.subarray(0, 4)))
  new DataView(out.buffer).setUint32(4, crc)
  out.set(payload, 8)
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
