// The CRC-32 in WebAssembly, for the portable build. Warm, it runs 2.5–2.7 GB/s in Chromium
// (slice-by-16; slice-by-8 ran 1.4–2.0 GB/s, about crc32.ts's speed), and checking the CRC was a
// quarter of decoding the webhook payloads there. Cold, crc32.ts runs in V8's interpreter until
// its loop is optimized: the first 55 kB a new page checked took 9–33 ms against 0.5–3.5 ms here
// (apps/bench/RESULTS.md, "The CRC-32 on a first screen"). WebAssembly is compiled before its
// first call.
// The module is crc32.wat, assembled (slice-by-16; crc32.ts reads short ranges slice-by-8 and
// long ones 16 bytes a step through an Int32Array); a test checks that these bytes are what it
// assembles to. It is compiled in the background when a codec is made (startWasmCrc32), and used
// once it is ready: until then, and where it cannot be (a Content Security Policy without
// 'wasm-unsafe-eval', runtimes that refuse to compile code), crc32.ts checks the bytes. The
// answers are the same.

/** The assembled module, base64 (exported for the test that assembles crc32.wat). */
export const WASM_CRC32_MODULE = 'AGFzbQEAAAABCwJgAABgA39/fwF/AwMCAAEFBAEBAgIHEAIGbWVtb3J5AgADY3JjAAEIAQAKiAQCiQEBA38DQCAAIQFBCCECA0AgAUEBdkGghuLtfnMgAUEBdiABQQFxGyEBIAJBAWshAiACDQALIABBAnQgATYCACAAQQFqIQAgAEGAAkkNAAtBgAghAANAIABBgAhrKAIAIQEgACABQf8BcUECdCgCACABQQh2czYCACAAQQRqIQAgAEGAgAFJDQALC/oCAQd/IAJBf3MhAyAAIAFqIQggACABQXBxaiEJAkADQCAAIAlPDQEgAyAAKAIAcyEEIAAoAgQhBSAAKAIIIQYgACgCDCEHIARB/wFxQQJ0KAKAeCAEQQh2Qf8BcUECdCgCgHBzIARBEHZB/wFxQQJ0KAKAaCAEQRh2QQJ0KAKAYHNzIAVB/wFxQQJ0KAKAWCAFQQh2Qf8BcUECdCgCgFBzIAVBEHZB/wFxQQJ0KAKASCAFQRh2QQJ0KAKAQHNzcyAGQf8BcUECdCgCgDggBkEIdkH/AXFBAnQoAoAwcyAGQRB2Qf8BcUECdCgCgCggBkEYdkECdCgCgCBzcyAHQf8BcUECdCgCgBggB0EIdkH/AXFBAnQoAoAQcyAHQRB2Qf8BcUECdCgCgAggB0EYdkECdCgCAHNzc3MhAyAAQRBqIQAMAAsLAkADQCAAIAhPDQEgAyAALQAAc0H/AXFBAnQoAgAgA0EIdnMhAyAAQQFqIQAMAAsLIANBf3ML'
// crc32.wat's memory: the tables in page 0, the bytes to check copied to page 1, a page at a time.
const AT = 65_536
const CHUNK = 65_536

let ready: Promise<boolean> | undefined
let crcOf: ((at: number, length: number, crc: number) => number) | undefined
let memory: Uint8Array | undefined

/**
 * Compiles the module in the background, once; a failure leaves the JavaScript CRC in charge.
 * @returns whether the module is ready (the same promise on every call).
 */
export function startWasmCrc32(): Promise<boolean> {
  ready ??= compile()
  return ready
}

async function compile(): Promise<boolean> {
  try {
    const { instance } = await WebAssembly.instantiate(Uint8Array.from(atob(WASM_CRC32_MODULE), (c) => c.charCodeAt(0)))
    const exports = instance.exports as { memory: WebAssembly.Memory; crc: (at: number, length: number, crc: number) => number }
    memory = new Uint8Array(exports.memory.buffer)
    crcOf = exports.crc
    return true
  } catch {
    // No WebAssembly, or compiling refused (a Content Security Policy, the runtime).
    return false
  }
}

/**
 * The CRC-32 of `data`, continuing from `crc`, as zlib's `crc32(crc, data)`; undefined while the
 * module is not ready (or never will be).
 */
export function wasmCrc32(data: Uint8Array, crc: number): number | undefined {
  if (crcOf === undefined) return undefined
  let c = crc
  for (let at = 0; at < data.length; at += CHUNK) {
    const part = data.subarray(at, Math.min(at + CHUNK, data.length))
    memory!.set(part, AT)
    c = crcOf(AT, part.length, c)
  }
  return c >>> 0
}
